#!/usr/bin/env python3
# src-loopback.py MIB [PAUSE]: send MIB MiB over one loopback TCP connection
# to ourselves (a known amount of network traffic for the source tests),
# sleeping PAUSE seconds before and after; exit 1 if fewer bytes arrived.
import socket, sys, threading, time

mib = int(sys.argv[1])
pause = float(sys.argv[2]) if len(sys.argv) > 2 else 0.0
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(1)
got = [0]

def sink():
    c, _ = srv.accept()
    while True:
        b = c.recv(1 << 16)
        if not b:
            break
        got[0] += len(b)

t = threading.Thread(target=sink)
t.start()
time.sleep(pause)
s = socket.create_connection(srv.getsockname())
buf = b"x" * (1 << 20)
for _ in range(mib):
    s.sendall(buf)
s.close()
t.join()
time.sleep(pause)
sys.exit(0 if got[0] == mib << 20 else 1)
