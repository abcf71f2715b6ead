"""Fakes of the Consul and Vault HTTP APIs the image's start reads, for svcgen's preflight tests.

No Consul or Vault server installs here, so these answer as the real servers answer (status,
headers, JSON shape and error words, from their HTTP API documentation), and tests/preflight.rs
checks them with the real Python clients the image uses (python-consul, hvac: oracle.py).

    python3 fake_services.py consul CASE TOKEN [KEY=VALUE ...]
    python3 fake_services.py vault CASE ROLE_ID SECRET_ID [KEY=VALUE ...]
    python3 fake_services.py kubernetes CASE TOKEN NAMESPACE NAME [KEY=VALUE ...]
    python3 fake_services.py couchbase CASE USER PASSWORD ADDRESS
    python3 fake_services.py google CASE PROJECT MODULUS_HEX EMAIL [NAME=VALUE ...] (fake_google.py)

CASE: ready, missing (the key is not there), denied (wrong credentials), sealed (vault only);
kubernetes also gone (no such ConfigMap or Secret, 404) and forbidden (a valid token without the
right to read, 403); couchbase also no-bucket and no-document. The couchbase fake listens on
ADDRESS (a loopback address) on the client's fixed ports (8091 and 8093; 18091 and 18093 with
TLS), as the image's client ignores any port.
With FAKE_TLS_CERT and FAKE_TLS_KEY (PEM files) set, it serves HTTPS with that certificate.
The first line on stdout is the port it listens on (127.0.0.1, a free port); it serves until killed.
"""

import base64
import json
import os
import ssl
import sys
import threading
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


def kubernetes(handler, method):
    """GET /api/v1/namespaces/<ns>/configmaps/<name> and .../secrets/<name>, as the API server
    answers: the object (a Secret's data in base64); 401 Status "Unauthorized" without a valid
    bearer token; 403 Status "<resource> \"<name>\" is forbidden: User ... cannot get resource"
    for a token without the right; 404 Status "<resource> \"<name>\" not found"."""
    case, token, namespace, name = ARGS[0], ARGS[1], ARGS[2], ARGS[3]
    values = dict(a.split("=", 1) for a in ARGS[4:])
    path = urlsplit(handler.path).path
    parts = path.strip("/").split("/")

    def status(code, reason, message, details=None):
        body = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
                "message": message, "reason": reason, "code": code}
        if details:
            body["details"] = details
        return handler.reply(code, body)

    # The API server reads the scheme without regard to case (the Python client sends "bearer").
    scheme, _, sent = handler.headers.get("Authorization", "").partition(" ")
    if scheme.lower() != "bearer" or sent != token:
        return status(401, "Unauthorized", "Unauthorized")
    if len(parts) != 6 or parts[:3] != ["api", "v1", "namespaces"] or parts[4] not in ("configmaps", "secrets"):
        return status(404, "NotFound", "the server could not find the requested resource")
    resource, asked = parts[4], parts[5]
    details = {"name": asked, "kind": resource}
    if case == "forbidden":
        return status(403, "Forbidden", f'{resource} "{asked}" is forbidden: User '
                      f'"system:serviceaccount:{namespace}:admin-ui" cannot get resource "{resource}" '
                      f'in API group "" in the namespace "{parts[3]}"', details)
    if case == "gone" or parts[3] != namespace or asked != name:
        return status(404, "NotFound", f'{resource} "{asked}" not found', details)
    defaults = {"configmaps": ("hostname", "auth.example.org"), "secrets": ("ssl_cert", "-----BEGIN CERTIFICATE-----")}
    data = dict(values)
    key, value = defaults[resource]
    if case != "missing":
        data.setdefault(key, value)
    kind = "ConfigMap" if resource == "configmaps" else "Secret"
    body = {"kind": kind, "apiVersion": "v1",
            "metadata": {"name": name, "namespace": namespace, "uid": str(uuid.uuid4()),
                         "resourceVersion": "7", "creationTimestamp": "2026-11-28T00:00:00Z"}}
    if kind == "Secret":
        body["type"] = "Opaque"
        data = {k: base64.b64encode(v.encode()).decode() for k, v in data.items()}
    if data:
        body["data"] = data
    return handler.reply(200, body)


def couchbase(handler, method):
    """Couchbase's REST (GET /pools/, GET /pools/default/buckets) and N1QL (POST /query/service,
    a form with `statement` and named arguments such as `$key`) services. A wrong user or password:
    401 (REST: empty body; N1QL: errors [{"code": 10000, "msg": "Authentication failure"}]). A
    bucket that is not there: N1QL 500 with errors [{"code": 12003, "msg": "Keyspace not found in
    CB datastore: default:<bucket>"}]. A document that is not there: 200 with empty results."""
    case, user, password = ARGS[0], ARGS[1], ARGS[2]
    buckets = [] if case == "no-bucket" else ["jans"]
    sent = handler.headers.get("Authorization", "")
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
    path = urlsplit(handler.path).path
    request_id = str(uuid.uuid4())
    if path == "/query/service" and method == "POST":
        length = int(handler.headers.get("Content-Length") or 0)
        form = {k: v[0] for k, v in parse_qs(handler.rfile.read(length).decode()).items()}
        if sent != expected:
            return handler.reply(401, {"requestID": request_id, "errors": [
                {"code": 10000, "msg": "Authentication failure"}], "status": "fatal"})
        statement = form.get("statement", "")
        words = statement.split()
        if statement == "SELECT status FROM system:indexes LIMIT 1":
            results = []
        elif words[:4] == ["SELECT", "objectClass", "FROM", words[3] if len(words) > 3 else ""] \
                and words[4:] == ["USE", "KEYS", "$key"]:
            bucket = words[3].strip("`")
            if bucket not in buckets:
                return handler.reply(500, {"requestID": request_id, "errors": [
                    {"code": 12003, "msg": f"Keyspace not found in CB datastore: default:{bucket}"}],
                    "status": "fatal"})
            key = json.loads(form.get("$key", "null"))
            results = [] if case == "no-document" or key != "configuration_jans-auth" \
                else [{"objectClass": "jansAppConf"}]
        else:
            return handler.reply(400, {"requestID": request_id, "errors": [
                {"code": 3000, "msg": "syntax error"}], "status": "fatal"})
        return handler.reply(200, {"requestID": request_id, "signature": {"objectClass": "json"},
                                   "results": results, "status": "success",
                                   "metrics": {"resultCount": len(results)}})
    if sent != expected:
        return handler.reply(401, b"", [("WWW-Authenticate", 'Basic realm="Couchbase Server Admin / REST"')])
    if path == "/pools/" or path == "/pools":
        return handler.reply(200, {"isAdminCreds": True, "isEnterprise": True, "pools": [
            {"name": "default", "uri": "/pools/default?uuid=1", "streamingUri": "/poolsStreaming/default?uuid=1"}],
            "implementationVersion": "7.2.0-5325-enterprise"})
    if path == "/pools/default/buckets":
        return handler.reply(200, [{"name": b, "bucketType": "membase", "uri": f"/pools/default/buckets/{b}"}
                                   for b in buckets])
    return handler.reply(404, b'"Not found."')


def google(handler, method):
    """Google's Secret Manager and Spanner REST APIs: fake_google.py."""
    import fake_google

    return fake_google.google(handler, method, ARGS)


SERVICES = {"consul": consul, "vault": vault, "kubernetes": kubernetes, "couchbase": couchbase,
            "google": google}
SERVICE = [SERVICES[sys.argv[1]]]
ARGS = sys.argv[2:]
TOKENS = set()

def serve(address, port):
    server = ThreadingHTTPServer((address, port), Handler)
    if os.environ.get("FAKE_TLS_CERT"):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.environ["FAKE_TLS_CERT"], os.environ["FAKE_TLS_KEY"])
        server.socket = context.wrap_socket(server.socket, server_side=True)
    return server


if __name__ == "__main__":
    if sys.argv[1] == "couchbase":
        # The client's fixed ports, REST then N1QL, on the given loopback address.
        ports = (18091, 18093) if os.environ.get("FAKE_TLS_CERT") else (8091, 8093)
        rest, n1ql = (serve(ARGS[3], port) for port in ports)
        threading.Thread(target=n1ql.serve_forever, daemon=True).start()
        print(ports[0], flush=True)
        rest.serve_forever()
    server = serve("127.0.0.1", 0)
    print(server.server_address[1], flush=True)
    server.serve_forever()
