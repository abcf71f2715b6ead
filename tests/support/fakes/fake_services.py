"""Fakes of the Consul and Vault HTTP APIs the image's start reads, for svcgen's preflight tests.

No Consul or Vault server installs here, so these answer as the real servers answer (status,
headers, JSON shape and error words, from their HTTP API documentation), and tests/preflight.rs
checks them with the real Python clients the image uses (python-consul, hvac: oracle.py).

    python3 fake_services.py consul CASE TOKEN [KEY=VALUE ...]
    python3 fake_services.py vault CASE ROLE_ID SECRET_ID [KEY=VALUE ...]

CASE: ready, missing (the key is not there), denied (wrong credentials), sealed (vault only).
With FAKE_TLS_CERT and FAKE_TLS_KEY (PEM files) set, it serves HTTPS with that certificate.
The first line on stdout is the port it listens on (127.0.0.1, a free port); it serves until killed.
"""

import base64
import json
import os
import ssl
import sys
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):  # quiet
        pass

    def reply(self, status, body, headers=()):
        data = body if isinstance(body, bytes) else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json" if data else "text/plain")
        self.send_header("Content-Length", str(len(data)))
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def body(self):
        length = int(self.headers.get("Content-Length") or 0)
        return json.loads(self.rfile.read(length) or b"{}")

    def do_GET(self):
        SERVICE[0](self, "GET")

    def do_POST(self):
        SERVICE[0](self, "POST")

    do_PUT = do_POST


def consul(handler, method):
    """GET /v1/kv/<key>: 200 with a list of one entry (Value in base64), 404 with an empty body
    when the key is not there, 403 "Permission denied" (or "ACL not found") for a wrong token.
    Every KV answer carries X-Consul-Index, which python-consul reads."""
    case, token = ARGS[0], ARGS[1]
    values = {"jans/config/hostname": "auth.example.org"}
    values.update(a.split("=", 1) for a in ARGS[2:])
    if case == "missing":
        values.pop("jans/config/hostname")
    url = urlsplit(handler.path)
    query = parse_qs(url.query)
    index = [("X-Consul-Index", "7"), ("X-Consul-Knownleader", "true"), ("X-Consul-Lastcontact", "0")]
    if not url.path.startswith("/v1/kv/"):
        return handler.reply(404, b"")
    sent = query.get("token", [""])[0] or handler.headers.get("X-Consul-Token", "")
    if case == "denied" or (token and sent != token):
        return handler.reply(403, b"ACL not found")
    key = url.path[len("/v1/kv/"):]
    if key not in values:
        return handler.reply(404, b"", index)
    value = base64.b64encode(values[key].encode()).decode()
    entry = {"LockIndex": 0, "Key": key, "Flags": 0, "Value": value, "CreateIndex": 7, "ModifyIndex": 7}
    return handler.reply(200, [entry], index)


def vault(handler, method):
    """AppRole login (POST /v1/auth/approle/login): 200 with auth.client_token, 400
    {"errors": ["invalid role or secret ID"]} for wrong IDs. KV v1 reads (GET /v1/secret/<path>):
    200 with data.value, 404 {"errors": []} when missing, 403 {"errors": ["permission denied"]}
    without a valid token. Sealed: 503 {"errors": ["Vault is sealed"]} for every request."""
    case, role, secret = ARGS[0], ARGS[1], ARGS[2]
    values = dict(a.split("=", 1) for a in ARGS[3:])
    values.setdefault("ssl_cert", "-----BEGIN CERTIFICATE-----")
    if case == "missing":
        values.pop("ssl_cert")
    path = urlsplit(handler.path).path
    if case == "sealed":
        return handler.reply(503, {"errors": ["Vault is sealed"]})
    if method == "POST" and path == "/v1/auth/approle/login":
        sent = handler.body()
        if case == "denied" or sent.get("role_id") != role or sent.get("secret_id") != secret:
            return handler.reply(400, {"errors": ["invalid role or secret ID"]})
        token = "hvs." + uuid.uuid4().hex
        TOKENS.add(token)
        auth = {"client_token": token, "accessor": uuid.uuid4().hex, "policies": ["default"],
                "token_policies": ["default"], "metadata": {"role_name": "admin-ui"},
                "lease_duration": 2764800, "renewable": True, "entity_id": "", "token_type": "service",
                "orphan": True}
        return handler.reply(200, {"request_id": str(uuid.uuid4()), "lease_id": "", "renewable": False,
                                   "lease_duration": 0, "data": None, "wrap_info": None,
                                   "warnings": None, "auth": auth})
    if handler.headers.get("X-Vault-Token") not in TOKENS:
        return handler.reply(403, {"errors": ["permission denied"]})
    if method == "GET" and path == "/v1/auth/token/lookup-self":
        return handler.reply(200, {"data": {"id": handler.headers.get("X-Vault-Token")}})
    prefix = "/v1/secret/jans/"
    if method == "GET" and path.startswith(prefix):
        name = path[len(prefix):]
        if name not in values:
            return handler.reply(404, {"errors": []})
        return handler.reply(200, {"request_id": str(uuid.uuid4()), "lease_id": "", "renewable": False,
                                   "lease_duration": 2764800, "data": {"value": values[name]},
                                   "wrap_info": None, "warnings": None, "auth": None})
    return handler.reply(404, {"errors": []})


SERVICES = {"consul": consul, "vault": vault}
SERVICE = [SERVICES[sys.argv[1]]]
ARGS = sys.argv[2:]
TOKENS = set()

if __name__ == "__main__":
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    if os.environ.get("FAKE_TLS_CERT"):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.environ["FAKE_TLS_CERT"], os.environ["FAKE_TLS_KEY"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()
