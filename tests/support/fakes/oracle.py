"""What the image's own clients get from a Consul or Vault server: the calls pycloudlib makes
(python-consul 1.1.0's kv.get with the token and consistency it passes; hvac's AppRole login and
KV v1 read), printed as one JSON line: {"value": ...} or {"error": "<exception class>: <text>"}.

    python3 oracle.py consul PORT KEY TOKEN
    python3 oracle.py vault PORT ROLE_ID SECRET_ID KEY
    python3 oracle.py kubernetes PORT TOKEN_FILE CA_FILE NAMESPACE NAME RESOURCE KEY
    python3 oracle.py couchbase ADDRESS USER PASSWORD BUCKET DOCUMENT_ID

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


if __name__ == "__main__":
    service, args = sys.argv[1], sys.argv[2:]
    try:
        out = {"value": {"consul": consul, "vault": vault, "kubernetes": kubernetes, "couchbase": couchbase}[service](*args)}
    except Exception as error:  # the class is what the image's wait sees
        out = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out))
