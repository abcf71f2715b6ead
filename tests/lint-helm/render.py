"""Renders the vendored manifests of tests/lint-helm/ from the upstream Helm chart, offline.

Chart: GluuFederation/flex, path charts/gluu, commit c0cc69bfd4bc75d281d46012f39480f8e12c6131
(`git archive c0cc69bfd charts/gluu | tar -x -C CHART`). Rendered with PyPI helm-python-sdk 0.2.2
(Helm's own engine, no cluster, no helm binary):

    python render.py CHART/charts/gluu OUT_DIR

Each value set below is the chart's values.yaml defaults with the overrides shown. Only the
objects a workload lint reads are kept, in the chart's order: the admin-ui Deployment, the shared
`<release>-config-cm` ConfigMap it takes `envFrom`, the config subchart's Role and RoleBinding,
and the fido2 Deployment (a second workload, so that lint must pick the Admin UI's).
"""

import json
import sys

import yaml  # PyYAML
from helm_python import Chart

COMMIT = "c0cc69bfd4bc75d281d46012f39480f8e12c6131"
VALUE_SETS = {
    # The chart's defaults: kubernetes config and secret adapters, SQL (MySQL).
    "defaults": {},
    # Hashicorp Vault as the secret adapter (AppRole files at the chart's default paths).
    "vault": {"global": {"configSecretAdapter": "vault"}},
    # PostgreSQL, with the wait values raised.
    "sql": {
        "config": {"configmap": {"cnSqlDbDialect": "pgsql", "cnSqlDbPort": 5432}},
        "global": {"cnPersistenceType": "sql"},
    },
}
KEEP = [
    ("Deployment", "gluu-admin-ui"),
    ("ConfigMap", "gluu-config-cm"),
    ("Role", "gluu-gluu-cn-role"),
    ("RoleBinding", "gluu-gluu-rolebinding"),
    ("Deployment", "gluu-fido2"),
]


def main(chart_dir, out_dir):
    chart = Chart.load(chart_dir)
    for name, values in VALUE_SETS.items():
        rendered = chart.render(values or None, name="gluu", namespace="gluu", is_install=True)
        docs = {}
        for path in sorted(rendered):
            for text in rendered[path].split("\n---"):
                text = text.strip().lstrip("-").strip()
                try:
                    obj = yaml.safe_load(text)
                except yaml.YAMLError:
                    continue
                if isinstance(obj, dict) and "kind" in obj:
                    key = (obj["kind"], obj.get("metadata", {}).get("name"))
                    if key in KEEP:
                        docs[key] = "# Source: " + path + "\n" + text
        header = (
            f"# Rendered from GluuFederation/flex charts/gluu at {COMMIT} with helm-python-sdk\n"
            f"# 0.2.2 (offline, release gluu in namespace gluu), values.yaml defaults with\n"
            f"# {json.dumps(values)}; kept: {', '.join(k + '/' + n for k, n in KEEP)}.\n"
            f"# Generator: tests/lint-helm/render.py.\n"
        )
        body = "\n---\n".join(docs[key] for key in KEEP if key in docs)
        with open(f"{out_dir}/{name}.yaml", "w") as out:
            out.write(header + "---\n" + body + "\n")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
