"""Candidate code for ``benchmarks/seccomp_trace.py``: one step per input (``f(k)`` runs step k),
each a family of operations honest code uses (plus a few the sandbox refuses, so their answers
are pinned too). ``f`` returns ``"ok"`` or ``"ExceptionName:errno"``, decoded by the tracer."""
import importlib
import os
import sys

STEPS = {}
def step(fn):
    STEPS[len(STEPS)] = fn
    return fn
@step
def import_all():
    bad = 0
    for m in sorted(sys.stdlib_module_names):
        if m in ("antigravity", "this", "idlelib", "turtledemo", "tkinter", "turtle", "__main__", "pydoc"):
            continue
        try:
            importlib.import_module(m)
        except BaseException:
            bad += 1
    if bad: raise RuntimeError(str(bad))
@step
def times():
    import time; time.sleep(0.0005); time.time(); time.monotonic(); time.process_time(); time.perf_counter(); time.thread_time()
@step
def rnd():
    import random; import secrets; random.seed(3); random.SystemRandom().random(); secrets.token_bytes(4); os.urandom(4)
@step
def osinfo():
    os.listdir('.'); os.getcwd(); os.getpid(); os.getppid(); os.getuid(); os.getgid(); os.geteuid(); os.cpu_count(); os.getloadavg(); os.uname(); os.times(); os.umask(0o22); os.sched_getaffinity(0)
@step
def files():
    import shutil
    with open('f.txt', 'w') as fh: fh.write('a' * 100)
    with open('f.txt') as fh: fh.read()
    with open('f.txt', 'r+b') as fh: fh.seek(10); fh.write(b'b'); fh.truncate(50); fh.flush(); os.fsync(fh.fileno())
    os.makedirs('d/e', exist_ok=True); os.rename('f.txt', 'd/g.txt'); os.stat('d/g.txt'); os.link('d/g.txt', 'd/h.txt'); os.symlink('g.txt', 'd/s'); os.readlink('d/s'); os.access('d', os.R_OK); list(os.scandir('d')); os.replace('d/h.txt', 'd/i.txt'); os.remove('d/i.txt'); shutil.copy('d/g.txt', 'd/c.txt'); shutil.rmtree('d')
@step
def pipes():
    r, w = os.pipe(); os.write(w, b'x'); os.read(r, 1); os.close(r); os.close(w); os.dup(0); fd = os.dup(1); os.dup2(fd, 9); os.close(9); os.close(fd)
@step
def thread():
    import threading; t = threading.Thread(target=lambda: None); t.start(); t.join()
@step
def pool():
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(2) as ex: list(ex.map(abs, [1, -2]))
@step
def sock():
    import socket; s = socket.socket(); s.close(); socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close(); a, b = socket.socketpair(); a.send(b'x'); b.recv(1); a.close(); b.close(); socket.gethostname()
@step
def sel():
    import select; import selectors; select.select([], [], [], 0); p = select.poll(); p.poll(0); e = select.epoll(); e.close(); selectors.DefaultSelector().close()
@step
def tmp():
    import tempfile
    with tempfile.TemporaryDirectory() as d: open(os.path.join(d, 'x'), 'w').close()
    with tempfile.NamedTemporaryFile() as f: f.write(b'x')
    tempfile.TemporaryFile().close(); tempfile.SpooledTemporaryFile().close()
@step
def sqlite():
    import sqlite3; c = sqlite3.connect(':memory:'); c.execute('create table t(a)'); c.close(); c = sqlite3.connect('x.db'); c.execute('create table t(a)'); c.commit(); c.close(); os.remove('x.db')
@step
def mm():
    import mmap; m = mmap.mmap(-1, 1 << 20); m[0:1] = b'x'; m.close()
    with open('m', 'wb') as fh: fh.write(b'x' * 4096)
    with open('m', 'r+b') as fh: m = mmap.mmap(fh.fileno(), 0); m.flush(); m.close()
    os.remove('m')
@step
def res():
    import resource; import uuid; import platform; resource.getrusage(resource.RUSAGE_SELF); resource.getrlimit(resource.RLIMIT_AS); resource.setrlimit(resource.RLIMIT_STACK, resource.getrlimit(resource.RLIMIT_STACK)); uuid.uuid4(); uuid.uuid1(); platform.uname(); platform.platform()
@step
def pw():
    import pwd; import grp; pwd.getpwuid(0); grp.getgrgid(0)
@step
def user():
    import getpass; getpass.getuser()
@step
def misc():
    import gc; import datetime; import locale; gc.collect(); datetime.datetime.now().astimezone(); locale.setlocale(locale.LC_ALL, 'C'); locale.getpreferredencoding()
@step
def aio():
    import asyncio
    async def co(): await asyncio.sleep(0.001); return 1
    asyncio.run(co())
@step
def sync():
    import queue; import threading; q = queue.Queue(); q.put(1); q.get(timeout=0.01); threading.Event().wait(0.001); c = threading.Condition()
    with c: c.wait(0.001)
    threading.Lock().acquire(timeout=0.001); threading.Semaphore(0).acquire(timeout=0.001)
@step
def stdio():
    print('hello'); sys.stdout.flush(); sys.stdout.buffer.write(b'x'); sys.stderr.write('e'); sys.stdin.read()
@step
def inp():
    input()
@step
def recursion():
    sys.setrecursionlimit(20000)
    def rec(n): return 0 if n == 0 else 1 + rec(n - 1)
    rec(15000)
@step
def bigmem():
    b = bytearray(1 << 29); b[-1] = 1; del b
@step
def hugemem():
    bytearray(3 << 30)
@step
def numpy_():
    import numpy as np; a = np.random.default_rng(1).random((50, 50)); np.linalg.inv(a + 50 * np.eye(50)); np.fft.fft(a[0]); np.sort(a); np.save('a.npy', a); np.load('a.npy'); os.remove('a.npy')
@step
def scipy_():
    import numpy as np; import scipy.sparse; import scipy.sparse.csgraph; import scipy.spatial; g = scipy.sparse.csr_matrix(np.ones((5, 5))); scipy.sparse.csgraph.shortest_path(g); scipy.spatial.cKDTree(np.arange(10).reshape(5, 2)).query([0, 0])
@step
def decimal_fr():
    import decimal; import fractions; import statistics; import math; decimal.getcontext().prec = 50; decimal.Decimal(1) / 7; fractions.Fraction(1, 3); statistics.median([1, 2, 3]); math.factorial(500)
@step
def signals():
    import signal; signal.signal(signal.SIGALRM, lambda *a: None); signal.setitimer(signal.ITIMER_REAL, 0.001); signal.pause() if False else None; signal.alarm(0); signal.raise_signal(signal.SIGALRM) ; signal.pthread_sigmask(signal.SIG_BLOCK, []); signal.getitimer(signal.ITIMER_REAL)
@step
def faulth():
    import faulthandler; faulthandler.enable(); faulthandler.dump_traceback(file=open('tb', 'w')); faulthandler.disable(); os.remove('tb')
@step
def zipt():
    import bz2
    import gzip
    import lzma
    import tarfile
    import zipfile
    with zipfile.ZipFile('z.zip', 'w') as z: z.writestr('a', 'b')
    with tarfile.open('t.tar', 'w') as t: t.add('z.zip')
    gzip.compress(b'x'); bz2.compress(b'x'); lzma.compress(b'x'); os.remove('z.zip'); os.remove('t.tar')
@step
def subproc():
    import subprocess; subprocess.run(['true'])
@step
def mproc():
    import multiprocessing; multiprocessing.Pool(1)
@step
def fork():
    os.fork()
@step
def etc():
    open('/etc/hostname').read()
@step
def memfd():
    os.memfd_create('x')
@step
def unixsock():
    import socket; socket.socket(socket.AF_UNIX).close()
@step
def shm():
    from multiprocessing import shared_memory; shared_memory.SharedMemory(create=True, size=10).unlink()
@step
def ctypes_():
    import ctypes; ctypes.CDLL(None).getpid()
@step
def sysconf():
    os.sysconf('SC_PAGE_SIZE'); os.sysconf('SC_NPROCESSORS_ONLN'); os.statvfs('.'); os.get_terminal_size() if False else None; os.isatty(0); os.get_blocking(0)
@step
def chdir():
    os.mkdir('q'); os.chdir('q'); os.chdir('..'); os.rmdir('q'); os.chmod('.', 0o700)
@step
def prio():
    os.nice(0); os.getpriority(os.PRIO_PROCESS, 0); os.sched_yield(); os.sched_getscheduler(0)
@step
def utime_():
    open('u', 'w').close(); os.utime('u'); os.remove('u')
@step
def sendfile():
    open('sf', 'w').write('abc'); a = os.open('sf', os.O_RDONLY); b = os.open('sf2', os.O_WRONLY | os.O_CREAT); os.sendfile(b, a, 0, 3); os.copy_file_range(a, b, 3, 0, 0) if hasattr(os, 'copy_file_range') else None; os.close(a); os.close(b); os.remove('sf'); os.remove('sf2')
@step
def eventfd():
    fd = os.eventfd(0); os.eventfd_write(fd, 1); os.eventfd_read(fd); os.close(fd)
@step
def xattr():
    open('x', 'w').close(); os.listxattr('x'); os.remove('x')

def f(k):
    try:
        STEPS[k]()
        return 'ok'
    except BaseException as e:
        return f'{type(e).__name__}:{getattr(e, "errno", None)}'
