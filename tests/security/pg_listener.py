#!/usr/bin/env python3
"""A PostgreSQL server impostor for the hostile-clone scenarios: listens on 127.0.0.1, asks
every client for a cleartext password, and records what each one sent as a JSON line in
LOG. Writes the port it listens on to PORTFILE. Usage: pg_listener.py PORTFILE LOG"""
import json
import os
import socket
import struct
import sys

portfile, log = sys.argv[1], sys.argv[2]
srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
srv.bind(("127.0.0.1", 0))
srv.listen(8)
with open(portfile + ".tmp", "w") as f:
    f.write(str(srv.getsockname()[1]))
os.rename(portfile + ".tmp", portfile)


def read_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def serve(conn):
    record = {"startup": {}, "password": None, "client_certificate": False}
    try:
        while True:  # SSLRequest / GSSENCRequest first: we speak neither
            (length,) = struct.unpack("!I", read_exact(conn, 4))
            body = read_exact(conn, length - 4)
            (code,) = struct.unpack("!I", body[:4])
            if code in (80877103, 80877104):
                conn.sendall(b"N")
                continue
            parts = body[4:].split(b"\0")
            record["startup"] = {parts[i].decode(): parts[i + 1].decode() for i in range(0, len(parts) - 1, 2) if parts[i]}
            break
        conn.sendall(b"R" + struct.pack("!II", 8, 3))  # AuthenticationCleartextPassword
        tag = read_exact(conn, 1)
        (length,) = struct.unpack("!I", read_exact(conn, 4))
        body = read_exact(conn, length - 4)
        if tag == b"p":
            record["password"] = body.rstrip(b"\0").decode("utf-8", "replace")
        msg = b"SFATAL\0C28P01\0Mpassword authentication failed\0\0"
        conn.sendall(b"E" + struct.pack("!I", len(msg) + 4) + msg)
    except (EOFError, OSError):
        pass
    finally:
        conn.close()
        with open(log, "a") as f:
            f.write(json.dumps(record) + "\n")


while True:
    c, _ = srv.accept()
    serve(c)
