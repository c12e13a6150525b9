"""core/verify/python_driver.py on its own: its helpers, and its protocol
spoken by a real worker process (the C++ side is tested by
tests/verify/python_reference_test.cpp)."""
import fcntl
import importlib.util
import math
import mmap
import os
import socket
import struct
import subprocess
import sys
import tempfile

import pytest

DRIVER = os.environ.get('TC_PYTHON_DRIVER') or os.path.join(
    os.path.dirname(__file__), '..', '..', 'core', 'verify', 'python_driver.py')

spec = importlib.util.spec_from_file_location('python_driver', DRIVER)
driver = importlib.util.module_from_spec(spec)
spec.loader.exec_module(driver)


def test_relu_and_sigmoid_follow_the_contract():
    assert driver.relu(-2) == 0 and driver.relu(3.5) == 3.5
    assert driver.sigmoid(0) == 0.5
    assert driver.sigmoid(-800) == 0.0  # exp(x) form: no overflow for large negative x
    assert driver.sigmoid(800) == 1.0
    assert driver.sigmoid(2.0) == 1 / (1 + math.exp(-2.0))


def test_numbers_and_refusals():
    assert driver.number(True) == 1.0
    assert driver.number(7) == 7.0
    assert driver.number(2.5) == 2.5
    assert 'OverflowError' in driver.number(10 ** 400)
    assert driver.number(None) == 'the reference returned NoneType, not a number'


def decode(record):
    tag = record[0]
    if tag == 1:
        (n,) = struct.unpack_from('<I', record, 1)
        return ('raised', record[5:5 + n].decode())
    (count,) = struct.unpack_from('<I', record, 1)
    pos, out = 5, []
    for _ in range(count):
        (n,) = struct.unpack_from('<I', record, pos)
        name = record[pos + 4:pos + 4 + n].decode()
        (v,) = struct.unpack_from('<d', record, pos + 4 + n)
        out.append((name, v))
        pos += 4 + n + 8
    assert pos == len(record)
    return ('ok', out)


def test_return_conventions():
    assert decode(driver.encode(3)) == ('ok', [('result', 3.0)])
    assert decode(driver.encode((1, 2.5))) == ('ok', [('result[0]', 1.0), ('result[1]', 2.5)])
    assert decode(driver.encode({'y': True})) == ('ok', [('y', 1.0)])
    assert decode(driver.encode({1: 2})) == ('raised', 'the reference returned a dict with a non-string key')
    assert decode(driver.encode([None]))[1].endswith('(item 0)')


def test_long_messages_are_refused():
    with pytest.raises(driver.TooLong):
        driver.encode_failure('x' * (driver.MAX_MESSAGE + 1))
    assert decode(driver.encode_failure('short')) == ('raised', 'short')


def test_load_errors_are_located():
    try:
        driver.load('def f(a):\n    return a +\n', 'ref.py')
    except SyntaxError as e:
        message, line, _ = driver.load_error(e, 'ref.py')
    assert message.startswith('SyntaxError') and line == 2
    try:
        driver.load('x = 1\ny = 1 / 0\n', 'ref.py')
    except ZeroDivisionError as e:
        assert driver.load_error(e, 'ref.py') == ('ZeroDivisionError: division by zero', 2, 1)


def test_signature_problem():
    g = driver.load('def f(a, b=1):\n    return a\n', 'r.py')
    assert driver.signature_problem(g['f'], ['a']) is None
    assert driver.signature_problem(g['f'], ['a', 'b']) is None
    assert 'takes parameters (a, b)' in driver.signature_problem(g['f'], ['c'])


class Worker:
    """The driver in a worker process, wired as the C++ side wires it."""

    def __init__(self):
        self.sock, child = socket.socketpair()
        self.counter = tempfile.TemporaryFile()
        self.counter.write(b'\0' * 4096)
        self.counter.flush()
        cfd, sfd = self.counter.fileno(), child.fileno()

        def wire():
            s, c = fcntl.fcntl(sfd, fcntl.F_DUPFD, 10), fcntl.fcntl(cfd, fcntl.F_DUPFD, 10)
            os.dup2(s, 3)
            os.dup2(s, 4)
            os.dup2(c, 5)

        # subprocess closes everything but pass_fds after wire() ran.
        self.proc = subprocess.Popen([sys.executable, '-I', '-S', DRIVER], preexec_fn=wire,
                                     pass_fds=(3, 4, 5), stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE)
        child.close()
        head = self.recv(9)
        assert head == b'O' + struct.pack('<Q', 0), 'the worker first says it is ready'

    def request(self, kind, payload):
        self.sock.sendall(kind + struct.pack('<Q', len(payload)) + payload)
        head = self.recv(9)
        (n,) = struct.unpack('<Q', head[1:])
        return head[:1], self.recv(n)

    def recv(self, n):
        data = b''
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            assert chunk, 'the worker closed the connection'
            data += chunk
        return data

    def close(self):
        self.sock.close()
        out = self.proc.stdout.read()
        assert self.proc.wait(timeout=10) == 0
        return out


def strings(*items):
    return b''.join(driver.pack_str(i) for i in items)


def load_request(source, function='', preferred=''):
    return strings(source, 'r.py', function, preferred)


def bind_request(names, integral):
    return struct.pack('<I', len(names)) + b''.join(driver.pack_str(n) + bytes([i]) for n, i in zip(names, integral))


def test_protocol_end_to_end():
    w = Worker()
    kind, reply = w.request(b'L', load_request('def f(a, x):\n    print(a)\n    return 12 // a + x\n'))
    assert (kind, reply) == (b'O', driver.pack_str('f') + struct.pack('<i', 1))
    kind, reply = w.request(b'B', bind_request(['a', 'x'], [1, 0]))
    assert (kind, reply) == (b'O', b'')
    a, x = [0.0, 3.0], [0.5, 0.25]
    kind, reply = w.request(b'E', struct.pack('<Q', 2) + struct.pack('<2d', *a) + struct.pack('<2d', *x))
    assert kind == b'R'
    first = decode(reply[:5 + len('ZeroDivisionError: integer division or modulo by zero')])
    assert first == ('raised', 'ZeroDivisionError: integer division or modulo by zero')
    assert decode(reply[len(driver.encode_failure(first[1])):]) == ('ok', [('result', 4.25)])
    assert w.close() == b'', 'print() must not reach the worker stdout'
    # The counter says how many cases started: what the watchdog watches.
    w.counter.seek(0)
    assert struct.unpack('<Q', w.counter.read(8))[0] == 2


def test_memory_error_is_fatal():
    w = Worker()
    w.request(b'L', load_request('def f(a):\n    raise MemoryError\n'))
    w.request(b'B', bind_request(['a'], [1]))
    kind, reply = w.request(b'E', struct.pack('<Q', 1) + struct.pack('<d', 5))
    assert (kind, reply) == (b'F', driver.pack_str('ran out of its memory limit') + struct.pack('<q', 0))
    w.close()


def test_refusals_are_located():
    w = Worker()
    kind, reply = w.request(b'L', load_request('x = 1\ny = 1 / 0\n'))
    message = 'the reference raised ZeroDivisionError: division by zero while loading'
    assert (kind, reply) == (b'X', driver.pack_str(message) + struct.pack('<ii', 2, 1))
    kind, reply = w.request(b'L', b'\x04\0\0\0\xff\xfe\xfd\xfc' + strings('r.py', '', ''))
    assert (kind, reply) == (b'X', driver.pack_str('the reference source is not valid utf-8') + struct.pack('<ii', 0, 0))
    w.request(b'L', load_request('def f(x, y):\n    return x\n'))
    kind, reply = w.request(b'B', bind_request(['a'], [1]))
    assert kind == b'X' and b"takes parameters (x, y) but the program's inputs are (a)" in reply
    w.close()
