"""What the image's own clients get from a Consul or Vault server: the calls pycloudlib makes
(python-consul 1.1.0's kv.get with the token and consistency it passes; hvac's AppRole login and
KV v1 read), printed as one JSON line: {"value": ...} or {"error": "<exception class>: <text>"}.

    python3 oracle.py consul PORT KEY TOKEN
    python3 oracle.py vault PORT ROLE_ID SECRET_ID KEY
    python3 oracle.py kubernetes PORT TOKEN_FILE CA_FILE NAMESPACE NAME RESOURCE KEY
    python3 oracle.py couchbase ADDRESS USER PASSWORD BUCKET DOCUMENT_ID
    python3 oracle.py google-config PORT CREDENTIALS_FILE PROJECT PREFIX KEY
    python3 oracle.py google-secret PORT CREDENTIALS_FILE PROJECT PREFIX PASSPHRASE KEY
    python3 oracle.py google-spanner PORT CREDENTIALS_FILE DATABASE TABLE DOC_ID   (TABLE "-": SELECT 1)

kubernetes: the Python `kubernetes` client pinned in scripts/requirements.txt, configured by its
own in-cluster loader (with the token and CA files where the test put them), reading the object
as pycloudlib's KubernetesConfig.get_all / KubernetesSecret.get_all do, then `.get(key) or None`.
couchbase: no Couchbase client of the image is installable, so this replays with `requests` the
exact calls of jans-pycloudlib persistence/couchbase.py (0cc3975d): N1qlApi.healthcheck,
CouchbaseClient.n1ql_client (its ValueError), doc_exists (with build_n1ql_request_body), and
RestApi.healthcheck + get_buckets; it prints {"value": {"exists": ..., "reason": ..., "buckets_ok": ...}}.
"""

import json
import sys


def consul(port, key, token):
    import consul as python_consul

    client = python_consul.Consul(host="127.0.0.1", port=int(port), token=token, scheme="http",
                                  consistency="stale", verify=False)
    _, result = client.kv.get(key)
    return None if not result else result["Value"].decode()


def vault(port, role_id, secret_id, key):
    import hvac

    client = hvac.Client(url=f"http://127.0.0.1:{port}")
    client.secrets.kv.default_kv_version = 1
    if not client.is_authenticated():
        creds = client.auth.approle.login(role_id, secret_id, use_token=False, mount_point="approle")
        client.token = creds["auth"]["client_token"]
    try:
        found = client.secrets.kv.read_secret(path=f"jans/{key}", mount_point="secret")
    except hvac.exceptions.InvalidPath:
        found = {}
    return found["data"]["value"] if found else None


def kubernetes(port, token_file, ca_file, namespace, name, resource, key):
    import base64

    import kubernetes.client
    from kubernetes.config.incluster_config import InClusterConfigLoader

    environ = {"KUBERNETES_SERVICE_HOST": "127.0.0.1", "KUBERNETES_SERVICE_PORT": port}
    InClusterConfigLoader(token_filename=token_file, cert_filename=ca_file, environ=environ).load_and_set()
    api = kubernetes.client.CoreV1Api()
    try:
        if resource == "configmaps":
            data = api.read_namespaced_config_map(name, namespace).data or {}
        else:
            found = api.read_namespaced_secret(name, namespace).data or {}
            data = {k: base64.b64decode(v).decode() for k, v in found.items()}
    except kubernetes.client.rest.ApiException as error:
        message = json.loads(error.body).get("message") if error.body else ""
        raise RuntimeError(f"ApiException {error.status} {error.reason}: {message}") from None
    return data.get(key) or None


def couchbase(address, user, password, bucket, document_id):
    import requests

    session = requests.Session()  # BaseApi.session: verify off by default
    session.verify = False
    auth = (user, password)
    out = {}
    # N1qlApi.healthcheck, then CouchbaseClient.n1ql_client's refusal when no host answers ok.
    resp = session.post(f"http://{address}:8093/query/service",
                        data={"statement": "SELECT status FROM system:indexes LIMIT 1"}, auth=auth, timeout=10)
    if not resp.ok:
        out["exists"] = False
        out["reason"] = f"Unable to resolve host for query service from {address} list (healthcheck {resp.status_code})"
    else:
        # doc_exists with build_n1ql_request_body(query, key=id_)
        data = {"statement": f"SELECT objectClass FROM {bucket} USE KEYS $key", "$key": json.dumps(document_id)}
        req = session.post(f"http://{address}:8093/query/service", data=data, auth=auth)
        if not req.ok:
            try:
                err = json.loads(req.text)["errors"][0]["msg"]
            except (ValueError, KeyError, IndexError):
                err = req.reason
            out["exists"], out["reason"] = False, err
        elif not req.json()["results"]:
            out["exists"], out["reason"] = False, "Missing document"
        else:
            out["exists"] = True
    # RestApi.healthcheck, then get_buckets().ok
    health = session.get(f"http://{address}:8091/pools/", auth=auth, timeout=10)
    out["buckets_ok"] = health.ok and session.get(f"http://{address}:8091/pools/default/buckets", auth=auth).ok
    return out


def _google(service, port, credentials_file):
    """The real GAPIC client of `service` (google-cloud-secret-manager, google-cloud-spanner),
    credentials loaded as google-auth loads GOOGLE_APPLICATION_CREDENTIALS, over its REST
    transport at the fake (the image speaks gRPC to the same API: same resources, same errors)."""
    from google.oauth2 import service_account

    credentials = service_account.Credentials.from_service_account_file(credentials_file)
    options = {"api_endpoint": f"http://127.0.0.1:{port}"}
    return service(credentials=credentials, transport="rest", client_options=options)


def google_config(port, credentials_file, project, prefix, key):
    """jans-pycloudlib GoogleConfig.get_all (latest, then the version; it would create a missing
    secret, which only reads here), then `.get(key) or None`."""
    from google.cloud import secretmanager

    client = _google(secretmanager.SecretManagerServiceClient, port, credentials_file)
    name = f"projects/{project}/secrets/{prefix}-configuration/versions/latest"
    response = client.access_secret_version(request={"name": name})
    return json.loads(response.payload.data.decode("UTF-8")).get(key) or None


def google_secret(port, credentials_file, project, prefix, passphrase, key):
    """jans-pycloudlib GoogleSecret.get_all as the multipart adapter first wrote it: list the
    parts, join their versions, `_maybe_legacy_payload` (zlib or lzma, then `_decrypt`:
    PBKDF2-HMAC-SHA256 1000 rounds, AES-GCM, lzma; plain JSON otherwise), then `.get(key) or
    None`. (Later pycloudlib joins parts only until they parse with `json.loads`, which raises
    UnicodeDecodeError, uncaught, on a compressed payload: see src/preflight/google/legacy.rs.)"""
    import binascii, hashlib, lzma, zlib
    from contextlib import suppress
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    from google.api_core.exceptions import NotFound
    from google.cloud import secretmanager

    client = _google(secretmanager.SecretManagerServiceClient, port, credentials_file)
    listed = client.list_secrets(request={"parent": f"projects/{project}", "filter": f"name:secrets/{prefix}-secret"})
    payload = b""
    for name in [f"{s.name}/versions/latest" for s in listed]:
        with suppress(NotFound):
            payload += client.access_secret_version(request={"name": name}).payload.data
    if not payload:
        return None
    text = ""
    with suppress(zlib.error):
        text = zlib.decompress(payload).decode("UTF-8")
    if not text:
        with suppress(lzma.LZMAError):
            text = lzma.decompress(payload).decode("UTF-8")
    if not text:
        return json.loads(payload).get(key) or None
    try:
        salt, iv, sealed = map(binascii.unhexlify, text.split("-"))
    except binascii.Error:
        return json.loads(text).get(key) or None
    plaintext = b""
    try:
        aes = AESGCM(hashlib.pbkdf2_hmac("sha256", passphrase.encode("utf8"), salt, 1000))
        plaintext = lzma.decompress(aes.decrypt(iv, sealed, None))
    except InvalidTag:
        pass  # the image logs "Wrong passphrase used." and goes on with the empty text
    return json.loads(plaintext.decode("utf8")).get(key) or None


def google_spanner(port, credentials_file, database, table, doc_id):
    """jans-pycloudlib SpannerClient.row_exists (a read of doc_id by key, limit 1: the rows) or
    connected (SELECT 1: the first column), through a new session."""
    from google.cloud import spanner_v1

    client = _google(spanner_v1.SpannerClient, port, credentials_file)
    session = client.create_session(request={"database": database})
    if table == "-":
        result = client.execute_sql(request={"session": session.name, "sql": "SELECT 1"})
        return int(result.rows[0][0])
    result = client.read(request={"session": session.name, "table": table, "columns": ["doc_id"],
                                  "key_set": {"keys": [[doc_id]]}, "limit": 1})
    return [list(row) for row in result.rows]


SERVICES = {"consul": consul, "vault": vault, "kubernetes": kubernetes, "couchbase": couchbase,
            "google-config": google_config, "google-secret": google_secret,
            "google-spanner": google_spanner}


if __name__ == "__main__":
    service, args = sys.argv[1], sys.argv[2:]
    try:
        out = {"value": SERVICES[service](*args)}
    except Exception as error:  # the class is what the image's wait sees
        out = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out))
