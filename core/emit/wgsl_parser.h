#pragma once
/// A front end for exactly the WGSL subset the tensorcode emitter writes (see
/// docs/backends.md, "WGSL subset"). Anything outside it is refused with an
/// error located at LINE:COL of the WGSL text. The AST keeps expressions in
/// one arena so deep inputs never recurse on destruction.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/result.h"

namespace tc::wgsl {

enum class Type : std::uint8_t { Invalid, F32, U32, Bool, Vec3U32 };
std::string_view type_name(Type t);

struct Expr {
  enum Kind : std::uint8_t { FloatLit, UintLit, BoolLit, Ident, Unary, Binary, Call, Index, Member } kind = FloatLit;
  std::string text;           ///< literal spelling, identifier, operator, callee, member name
  Type cast = Type::Invalid;  ///< bitcast<T> target
  std::vector<int> kids;      ///< operand expression indices
  SourceLoc loc;
};

struct Stmt {
  enum Kind : std::uint8_t { Let, Store, If } kind = Let;
  std::string name;           ///< let name, or the buffer stored to
  Type declared = Type::Invalid;
  int index = -1;             ///< Store: element index expression
  int value = -1;             ///< Let/Store value, If condition
  std::vector<Stmt> body;     ///< If body
  SourceLoc loc;
};

struct ConstDecl {
  std::string name;
  Type type = Type::F32;
  int value = -1;
  SourceLoc loc;
};

struct BufferDecl {
  std::string name;
  std::uint32_t binding = 0;
  bool writable = false;
  Type element = Type::F32;
  SourceLoc loc;
};

struct Module {
  std::vector<Expr> exprs;
  std::vector<ConstDecl> consts;
  std::vector<BufferDecl> buffers;
  std::string entry_name;
  std::uint32_t workgroup[3] = {1, 1, 1};
  std::string gid_name;
  std::vector<Stmt> body;
};

/// Parses `text`. Errors carry LINE:COL in Diagnostic::loc and `file` in
/// Diagnostic::file.
Result<Module> parse(std::string_view text, std::string_view file = {});

}  // namespace tc::wgsl
