"""A fake of Google's OAuth-protected REST APIs the image's start reads through its clients:
Secret Manager (list secrets, access a version) and Spanner (create a session, read, executeSql),
for svcgen's preflight tests. Standard library only.

    python3 fake_services.py google CASE PROJECT MODULUS_HEX EMAIL [NAME=VALUE ...]

It accepts, as Google does for a service account, a self-signed RS256 JWT as the bearer (what the
image's GAPIC clients send: `iss` the account, a `scope` or `aud`, not expired), verified with the
account's public key (MODULUS_HEX, exponent 65537); anything else is 401 UNAUTHENTICATED in
Google's words. CASE: ready; missing (the secrets hold no hostname/ssl_cert, the table no row);
gone (no secret, no table); denied (the account lacks the permissions: 403); echo (a hostile
server: 401 with the request's Authorization header in its message). NAME=VALUE: prefix
(default svc), instance, database, and secret_payload (base64: the `<prefix>-secret` payload as
stored, e.g. an older encrypted one). tests/preflight_google.rs checks every answer against the
real Python clients (oracle.py google-*).
"""

import base64
import hashlib
import json
import time
import uuid
from urllib.parse import parse_qs, unquote, urlsplit

NUMBER = "123456789012"  # what Google puts in the names it returns instead of the project id
SHA256_INFO = bytes.fromhex("3031300d060960864801650304020105000420")
UNAUTHENTICATED = ("Request had invalid authentication credentials. Expected OAuth 2 access token, "
                   "login cookie or other valid authentication credential. See "
                   "https://developers.google.com/identity/sign-in/web/devconsole-project.")


def error(handler, code, status, message):
    return handler.reply(code, {"error": {"code": code, "message": message, "status": status}})


def signed_by_account(authorization, modulus, email):
    """The bearer is a JWT this account signed (RS256, PKCS#1 v1.5), for it, not expired."""
    if not authorization.startswith("Bearer "):
        return False
    parts = authorization[len("Bearer "):].split(".")
    if len(parts) != 3:
        return False
    unb64 = lambda text: base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    try:
        header, claims, signature = json.loads(unb64(parts[0])), json.loads(unb64(parts[1])), unb64(parts[2])
    except ValueError:
        return False
    n = int(modulus, 16)
    size = (n.bit_length() + 7) // 8
    digest = SHA256_INFO + hashlib.sha256(f"{parts[0]}.{parts[1]}".encode()).digest()
    expected = b"\x00\x01" + b"\xff" * (size - len(digest) - 3) + b"\x00" + digest
    if header.get("alg") != "RS256" or len(signature) != size:
        return False
    if pow(int.from_bytes(signature, "big"), 65537, n).to_bytes(size, "big") != expected:
        return False
    if claims.get("iss") != email or claims.get("exp", 0) <= time.time():
        return False
    return claims if claims.get("scope") or claims.get("aud") else False


# The scopes each API's methods accept (Google's REST reference: Secret Manager's list and
# access, Spanner's sessions.create, read and executeSql).
SCOPES = {
    "secretmanager": {"https://www.googleapis.com/auth/cloud-platform"},
    "spanner": {"https://www.googleapis.com/auth/cloud-platform",
                "https://www.googleapis.com/auth/spanner.data"},
}


def scoped_for(claims, api):
    """The bearer's scope (or, for a self-signed JWT without one, its audience) fits `api`."""
    if claims.get("scope"):
        return bool(set(claims["scope"].split()) & SCOPES[api])
    return claims.get("aud", "").startswith(f"https://{api}.")


def payloads(case, extra):
    """The secrets of the project, by id: their latest version's payload."""
    prefix = extra.get("prefix", "svc")
    if case == "gone":
        return {}
    config = {"hostname": "auth.example.org"} if case != "missing" else {"country_code": "US"}
    secret = {"ssl_cert": "-----BEGIN CERTIFICATE-----", "sql_password": "sql-pw"} \
        if case != "missing" else {"other": "x"}
    stored = base64.b64decode(extra["secret_payload"]) if "secret_payload" in extra \
        else json.dumps(secret).encode()
    return {f"{prefix}-configuration": json.dumps(config).encode(), f"{prefix}-secret": stored}


def secret_manager(handler, path, query, case, project, extra):
    secrets = payloads(case, extra)
    owner = (f"projects/{project}", f"projects/{NUMBER}")
    if path.endswith("/secrets") and path[len("/v1/"):-len("/secrets")] in owner:
        if case == "denied":
            return error(handler, 403, "PERMISSION_DENIED", f"Permission 'secretmanager.secrets.list' "
                         f"denied for resource 'projects/{project}' (or it may not exist).")
        wanted = query.get("filter", [""])[0].removeprefix("name:")
        names = [f"projects/{NUMBER}/secrets/{s}" for s in sorted(secrets) if wanted in f"secrets/{s}"]
        found = [{"name": n, "replication": {"automatic": {}}, "createTime": "2026-11-01T00:00:00Z",
                  "etag": "\"1\""} for n in names]
        if case == "endless":  # a hostile server: one more page, always
            return handler.reply(200, {"secrets": [], "nextPageToken": "next"})
        return handler.reply(200, {"secrets": found, "totalSize": len(found)} if found else {})
    if path.endswith(":access"):
        name = path[len("/v1/"):-len(":access")]
        parts = name.split("/")
        if len(parts) != 6 or "/".join(parts[:2]) not in owner or parts[2] != "secrets":
            return error(handler, 404, "NOT_FOUND", f"Secret [{name}] not found or has no versions.")
        if case == "denied":
            return error(handler, 403, "PERMISSION_DENIED", f"Permission 'secretmanager.versions.access' "
                         f"denied for resource '{name}' (or it may not exist).")
        secret, version = parts[3], parts[5]
        if secret not in secrets or version not in ("latest", "1"):
            return error(handler, 404, "NOT_FOUND",
                         f"Secret [projects/{NUMBER}/secrets/{secret}] not found or has no versions.")
        data = secrets[secret]
        return handler.reply(200, {"name": f"projects/{NUMBER}/secrets/{secret}/versions/1",
                                   "payload": {"data": base64.b64encode(data).decode()}})
    return error(handler, 404, "NOT_FOUND", "The requested URL was not found on this server.")


def spanner(handler, path, request, case, project, extra):
    database = f"projects/{project}/instances/{extra.get('instance', 'instance-1')}/databases/" \
               f"{extra.get('database', 'database-1')}"
    if path == f"/v1/{database}/sessions":
        if case == "denied":
            return error(handler, 403, "PERMISSION_DENIED",
                         f"Caller is missing IAM permission spanner.sessions.create on resource {database}.")
        return handler.reply(200, {"name": f"{database}/sessions/{uuid.uuid4().hex}",
                                   "createTime": "2026-11-28T20:00:00.000000Z"})
    if path.startswith(f"/v1/{database}/sessions/") and ":" in path:
        method = path.rsplit(":", 1)[1]
        if method == "executeSql":
            return handler.reply(200, {"metadata": {"rowType": {"fields": [{"type": {"code": "INT64"}}]}},
                                       "rows": [["1"]]})
        if method == "read":
            table = request.get("table", "")
            if case == "gone" or table not in ("jansAppConf", "jansGrp"):
                return error(handler, 404, "NOT_FOUND", f"Table not found: {table}")
            keys = [k[0] for k in request.get("keySet", {}).get("keys", [])]
            wanted = {"jansAppConf": "jans-auth", "jansGrp": "60B7"}[table]
            rows = [[wanted]] if case == "ready" and wanted in keys else []
            out = {"metadata": {"rowType": {"fields": [{"name": "doc_id", "type": {"code": "STRING"}}]}}}
            return handler.reply(200, {**out, "rows": rows} if rows else out)
    if path.startswith("/v1/projects/"):
        asked = path[len("/v1/"):].split("/sessions")[0]
        return error(handler, 404, "NOT_FOUND", f"Database not found: {asked}")
    return error(handler, 404, "NOT_FOUND", "The requested URL was not found on this server.")


def google(handler, method, args):
    case, project, modulus, email = args[:4]
    extra = dict(a.split("=", 1) for a in args[4:])
    url = urlsplit(handler.path)
    path, query = unquote(url.path), parse_qs(url.query)
    request = handler.body() if method == "POST" else {}
    if case == "echo":
        return error(handler, 401, "UNAUTHENTICATED", f"refused {handler.headers.get('Authorization')}")
    claims = signed_by_account(handler.headers.get("Authorization", ""), modulus, email)
    if not claims:
        return error(handler, 401, "UNAUTHENTICATED", UNAUTHENTICATED)
    if not scoped_for(claims, "spanner" if "/databases/" in path else "secretmanager"):
        return error(handler, 403, "PERMISSION_DENIED",
                     "Request had insufficient authentication scopes.")
    if "/sessions" in path:
        return spanner(handler, path, request, case, project, extra)
    return secret_manager(handler, path, query, case, project, extra)
