"""The worker side of tensorcode's CPython reference (core/verify/python_reference.cpp).

The C++ side starts `python3 -I -S -c <this file>` with its requests on fd 3,
its replies on fd 4 and an 8-byte shared counter on fd 5, under a memory
limit, and kills the process when a case runs past its time. The user's code
runs here, never in the tensorcode process, so a hang, a crash or an
os._exit() costs this process only.

Every message is one kind byte, a little-endian u64 length and the payload;
inside payloads, a string is a u32 length and UTF-8 bytes. The worker first
sends O (ready, empty). Requests: L (load: source, filename, function,
preferred function), B (bind: u32 n, then n times name and a u8 "integral"),
E (evaluate: u64 count, then one column of count float64 per input).
Replies: O (ok: after a load, the function's name and i32 first line), X
(refused: message, i32 line, i32 column), R (results: per case 0, u32 n, then
n times name and f64 value; or 1 and the message), F (fatal, ends the
verification: message and i64 case index). No JSON: importing json (and re)
would double the worker's start-up.

relu and sigmoid are the contract's (section 4) word for word; sigmoid uses
math.exp, as the C++ kernel uses exp from the same libm. square is x * x
(an int for an int, as the circuit's result type).
"""
import builtins
import math
import os
import struct
import sys

MAX_MESSAGE = 65536  # bytes of one exception message; longer ends the run

FunctionType = type(lambda: 0)


def pack_str(text):
    b = text.encode('utf-8', 'replace') if isinstance(text, str) else text
    return struct.pack('<I', len(b)) + b


def read_str(buf, pos):
    (n,) = struct.unpack_from('<I', buf, pos)
    return bytes(buf[pos + 4:pos + 4 + n]), pos + 4 + n


class TooLong(Exception):
    """A message or name over MAX_MESSAGE: ends the verification."""


def relu(x):
    return x if x > 0 else 0


def sigmoid(x):
    if x >= 0:
        return 1 / (1 + math.exp(-x))
    e = math.exp(x)
    return e / (1 + e)


def square(x):
    return x * x


class Sink:
    """sys.stdout/sys.stderr of user code: print() goes nowhere."""

    def write(self, text):
        return len(text)

    def flush(self):
        pass

    def isatty(self):
        return False


def load(source, filename):
    g = {'__name__': '__tensorcode_reference__', '__builtins__': builtins,
         'relu': relu, 'sigmoid': sigmoid, 'square': square}
    exec(compile(source, filename, 'exec', dont_inherit=True), g)
    return g


def functions(g, filename):
    return [k for k, v in g.items()
            if type(v) is FunctionType and v.__code__.co_filename == filename]


def describe(e):
    try:
        text = str(e)
    except BaseException:
        text = ''
    if len(text) > MAX_MESSAGE:  # refused before more copies of it are made
        raise TooLong(len(text))
    name = type(e).__name__
    return name + ': ' + text if text else name


def load_error(e, filename):
    """(message, line, column) of an exception raised while loading."""
    if isinstance(e, SyntaxError):
        msg = e.msg if isinstance(e.msg, str) else describe(e)
        return ('SyntaxError: ' + msg, e.lineno or 0, e.offset or 0)
    line = 0
    tb = e.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == filename:
            line = tb.tb_lineno
        tb = tb.tb_next
    return (describe(e), line, 1 if line else 0)


def signature_problem(fn, inputs):
    c = fn.__code__
    npos, nkw = c.co_argcount, c.co_kwonlyargcount
    names = list(c.co_varnames[:npos + nkw])
    posonly = names[:c.co_posonlyargcount]
    ndefaults = len(fn.__defaults__ or ())
    kwdefaults = fn.__kwdefaults__ or {}
    required = names[:npos - ndefaults] + [n for n in names[npos:] if n not in kwdefaults]
    takes_any = bool(c.co_flags & 0x08)
    refused = [n for n in inputs if n in posonly or (n not in names and not takes_any)]
    missing = [n for n in required if n not in inputs]
    if not refused and not missing:
        return None
    return ('takes parameters (' + ', '.join(names) + ") but the program's inputs are (" +
            ', '.join(inputs) + ')')


def number(v):
    """A returned value as a float, or a str saying why it is not a number."""
    if isinstance(v, bool):
        return 1.0 if v else 0.0
    if isinstance(v, int):
        try:
            return int.__float__(v)
        except OverflowError:
            return 'OverflowError: the returned int is too large for a float'
    if isinstance(v, float):
        return float.__float__(v)
    return 'the reference returned ' + type(v).__name__ + ', not a number'


def encode_failure(message):
    if len(message) > MAX_MESSAGE:
        raise TooLong(len(message))
    b = message.encode('utf-8', 'replace')
    if len(b) > MAX_MESSAGE:
        raise TooLong(len(b))
    return b'\x01' + struct.pack('<I', len(b)) + b


_RESULT = struct.pack('<II', 1, 6) + b'result'


def encode(r):
    """One case's return value as a results record."""
    if isinstance(r, (tuple, list)):
        parts = [b'\x00', struct.pack('<I', len(r))]
        for i, item in enumerate(r):
            v = number(item)
            if isinstance(v, str):
                return encode_failure(v + ' (item ' + str(i) + ')')
            name = ('result[' + str(i) + ']').encode()
            parts.append(struct.pack('<I', len(name)) + name + struct.pack('<d', v))
        return b''.join(parts)
    if isinstance(r, dict):
        parts = [b'\x00', struct.pack('<I', len(r))]
        for key, value in r.items():
            if not isinstance(key, str):
                return encode_failure('the reference returned a dict with a non-string key')
            v = number(value)
            if isinstance(v, str):
                return encode_failure(v + ' (key ' + key + ')')
            name = key.encode('utf-8', 'replace')
            if len(name) > MAX_MESSAGE:
                raise TooLong(len(name))
            parts.append(struct.pack('<I', len(name)) + name + struct.pack('<d', v))
        return b''.join(parts)
    v = number(r)
    if isinstance(v, str):
        return encode_failure(v)
    return b'\x00' + _RESULT + struct.pack('<d', v)


class Worker:
    def __init__(self, requests, replies, counter):
        self.requests = requests
        self.replies = replies
        self.counter = counter  # memoryview of 'Q': the case in progress, for the watchdog
        self.seq = 0
        self.globals = None
        self.fn = None
        self.names = []
        self.integral = []

    # ---- framing ----------------------------------------------------------
    def read_exact(self, n):
        chunks = []
        while n > 0:
            b = os.read(self.requests, min(n, 1 << 20))
            if not b:
                raise EOFError
            chunks.append(b)
            n -= len(b)
        return b''.join(chunks)

    def send(self, kind, payload):
        data = kind + struct.pack('<Q', len(payload)) + payload
        view = memoryview(data)
        while view:
            n = os.write(self.replies, view)
            view = view[n:]

    def ok(self, payload=b''):
        self.send(b'O', payload)

    def refuse(self, message, line=0, column=0):
        self.send(b'X', pack_str(message) + struct.pack('<ii', line, column))

    def fatal(self, message, case=-1):
        self.send(b'F', pack_str(message) + struct.pack('<q', case))

    # ---- requests -----------------------------------------------------------
    def do_load(self, payload):
        source, pos = read_str(payload, 0)
        filename, pos = read_str(payload, pos)
        chosen, pos = read_str(payload, pos)
        preferred, pos = read_str(payload, pos)
        filename, chosen, preferred = (filename.decode('utf-8', 'replace'), chosen.decode('utf-8', 'replace'),
                                       preferred.decode('utf-8', 'replace'))
        try:
            source = source.decode('utf-8')
        except UnicodeDecodeError:
            return self.refuse('the reference source is not valid utf-8')
        try:
            g = load(source, filename)
        except MemoryError:
            return self.refuse('loading the reference ran out of its memory limit')
        except BaseException as e:
            try:
                message, line, column = load_error(e, filename)
            except TooLong as t:
                message, line, column = type(e).__name__ + ' (its message is %d characters long)' % t.args[0], 0, 0
            return self.refuse('the reference raised ' + message + ' while loading', line, column)
        names = functions(g, filename)
        if not chosen:
            if len(names) == 1:
                chosen = names[0]
            elif preferred and preferred in names:
                chosen = preferred
            elif not names:
                return self.refuse('the reference defines no function')
            else:
                return self.refuse('the reference defines several functions (' + ', '.join(names) +
                                   '): name the one to use')
        fn = g.get(chosen)
        if type(fn) is not FunctionType:
            return self.refuse("the reference defines no function '" + chosen + "' (its functions: " +
                               ', '.join(names) + ')')
        self.globals, self.fn = g, fn
        self.ok(pack_str(chosen) + struct.pack('<i', fn.__code__.co_firstlineno))

    def do_bind(self, payload):
        (n,) = struct.unpack_from('<I', payload, 0)
        pos, names, integral = 4, [], []
        for _ in range(n):
            name, pos = read_str(payload, pos)
            names.append(name.decode('utf-8', 'replace'))
            integral.append(payload[pos] != 0)
            pos += 1
        problem = signature_problem(self.fn, names)
        if problem is not None:
            return self.refuse(problem)
        self.names, self.integral = names, integral
        self.ok()

    def do_evaluate(self, payload):
        (n,) = struct.unpack_from('<Q', payload, 0)
        columns = []
        for k in range(len(self.names)):
            col = struct.unpack_from('<%dd' % n, payload, 8 + 8 * n * k)
            columns.append([int(v) for v in col] if self.integral[k] else list(col))
        names, fn, counter = self.names, self.fn, self.counter
        rows = zip(*columns) if names else ((),) * n
        out = []
        for i, row in enumerate(rows):
            self.seq += 1
            counter[0] = self.seq
            try:
                r = fn(**dict(zip(names, row)))
            except MemoryError:
                return self.fatal('ran out of its memory limit', i)
            except BaseException as e:
                try:
                    out.append(encode_failure(describe(e)))
                except TooLong as t:
                    return self.fatal('raised an exception whose message is %d characters long (the limit is %d)'
                                      % (t.args[0], MAX_MESSAGE), i)
                except MemoryError:
                    return self.fatal('ran out of its memory limit', i)
                continue
            try:
                out.append(encode(r))
            except TooLong as t:
                return self.fatal('returned an output name %d characters long (the limit is %d)'
                                  % (t.args[0], MAX_MESSAGE), i)
            except MemoryError:
                return self.fatal('ran out of its memory limit', i)
        self.send(b'R', b''.join(out))

    def serve(self):
        while True:
            try:
                head = self.read_exact(9)
            except EOFError:
                return
            kind = head[:1]
            (size,) = struct.unpack('<Q', head[1:])
            payload = self.read_exact(size)
            if kind == b'L':
                self.do_load(payload)
            elif kind == b'B':
                self.do_bind(payload)
            elif kind == b'E':
                self.do_evaluate(payload)
            else:
                self.fatal('unknown request %r' % kind)
                return


def main():
    import mmap
    counter_map = mmap.mmap(5, 8)
    counter = memoryview(counter_map).cast('Q')
    # User code sees no stdin and prints into the void; fd 1 and 2 are not
    # the protocol's, so even os.write(1, ...) cannot disturb it.
    sys.stdout = sys.stderr = Sink()
    sys.stdin = None
    worker = Worker(3, 4, counter)
    worker.ok()  # ready: the start-up is timed apart from the user's code
    worker.serve()


if __name__ == '__main__':
    main()
