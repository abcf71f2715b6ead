"""What the image's own clients get from a Consul or Vault server: the calls pycloudlib makes
(python-consul 1.1.0's kv.get with the token and consistency it passes; hvac's AppRole login and
KV v1 read), printed as one JSON line: {"value": ...} or {"error": "<exception class>: <text>"}.

    python3 oracle.py consul PORT KEY TOKEN
    python3 oracle.py vault PORT ROLE_ID SECRET_ID KEY
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


if __name__ == "__main__":
    service, args = sys.argv[1], sys.argv[2:]
    try:
        out = {"value": {"consul": consul, "vault": vault}[service](*args)}
    except Exception as error:  # the class is what the image's wait sees
        out = {"error": f"{type(error).__name__}: {error}"}
    print(json.dumps(out))
