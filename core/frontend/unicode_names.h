#pragma once
/// CPython's rules for non-ASCII names, with tables generated from the
/// Python the verifier embeds (make_unicode_tables.py): which characters may
/// start or continue a name, which are printable (for the message), and the
/// NFKC normalisation that makes `ℌ` the same name as `H`.
#include <string>
#include <string_view>

namespace tc::py {

bool is_xid_start(char32_t cp);
bool is_xid_continue(char32_t cp);
/// str.isprintable() of the one character.
bool is_printable(char32_t cp);
/// unicodedata.normalize('NFKC', text).
std::u32string nfkc(std::u32string_view text);

}  // namespace tc::py
