#!/usr/bin/python3
"""A real SMTP server for the email alert channel's integration tests.

    smtp_capture.py --dir DIR --cert CERT --key KEY --user U --password P
                    [--implicit-tls] [--no-starttls]

aiosmtpd (Debian python3-aiosmtpd) on 127.0.0.1. By default it offers
STARTTLS and refuses MAIL until the client has upgraded and authenticated
(AUTH PLAIN or LOGIN, only over TLS). --implicit-tls speaks TLS from the
first byte (smtps://). --no-starttls offers no STARTTLS at all, to show the
client refuses to go on in clear text. Each accepted message is written to
DIR/message-N.eml: X-Envelope-From / X-Envelope-To lines, then the message
exactly as received. Prints "listening port=N" once it accepts connections.
A missing aiosmtpd is an error (exit 3), never a skip.
"""
import argparse
import os
import signal
import socket
import ssl
import sys
import threading

try:
    from aiosmtpd.controller import Controller
    from aiosmtpd.smtp import AuthResult, LoginPassword
except ImportError as e:  # the test must fail loudly, not skip
    print(f"smtp_capture: python3-aiosmtpd is required (apt-get install python3-aiosmtpd): {e}", flush=True)
    sys.exit(3)


class Capture:
    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.count = 0
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        with self.lock:
            self.count += 1
            path = os.path.join(self.out_dir, f"message-{self.count}.eml")
        head = f"X-Envelope-From: {envelope.mail_from}\r\n"
        head += "".join(f"X-Envelope-To: {to}\r\n" for to in envelope.rcpt_tos)
        with open(path + ".tmp", "wb") as f:
            f.write(head.encode() + envelope.original_content)
        os.rename(path + ".tmp", path)  # the test never sees half a message
        return "250 Message accepted"


def authenticator(user, password):
    def check(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword) and auth_data.login == user.encode()
              and auth_data.password == password.encode())
        return AuthResult(success=ok, handled=False)
    return check


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--dir", required=True)
    p.add_argument("--cert", required=True)
    p.add_argument("--key", required=True)
    p.add_argument("--user", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--implicit-tls", action="store_true")
    p.add_argument("--no-starttls", action="store_true")
    a = p.parse_args()
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(a.cert, a.key)
    port = free_port()
    options = dict(hostname="127.0.0.1", port=port, authenticator=authenticator(a.user, a.password),
                   auth_required=True, auth_require_tls=True)
    if a.implicit_tls:
        # aiosmtpd 1.4 counts only STARTTLS as TLS for auth_require_tls; here
        # the whole connection is TLS, so AUTH is still never in clear text.
        options.update(ssl_context=context, auth_require_tls=False)
    elif not a.no_starttls:
        options.update(tls_context=context, require_starttls=True)
    controller = Controller(Capture(a.dir), **options)
    controller.start()
    print(f"listening port={port}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    controller.stop()


if __name__ == "__main__":
    main()
