//! Stable diagnostic codes, one row each in [`codes!`]: the variant, its id (never reused; a
//! retired code keeps its number; `E…` errors, `W…` warnings, `N…` notes, which never
//! change the exit code), its name and its doc comment,
//! which is its one-line summary. The enum, [`Code::ALL`], [`CODES`] and every method below are
//! made from the rows (the one table pattern, `support::table`); SARIF's rules, GitLab's check names, `docs/diagnostics.md`
//! ([`super::rules::page`]) and the `allow` list's lookup read them (ripgrep's flag table is the
//! model): a new code is one row here, built where its problem is found.

use super::Severity;

/// One code's row.
#[derive(Debug)]
pub struct CodeDef {
    pub code: Code,
    /// The stable code, e.g. `E0201`.
    pub id: &'static str,
    /// A readable name, e.g. `unknown-key` (JSON output, `allow`, the docs' headings).
    pub name: &'static str,
    /// What the code reports, in one sentence: the row's doc comment.
    pub summary: &'static str,
}

/// Declares the codes: each row is a doc comment (the summary), the variant, its id and name,
/// made into a row of the one table pattern ([`table!`](crate::support::table)).
macro_rules! codes {
    ($( $(#[doc = $doc:literal])+ $variant:ident = $id:literal, $name:literal; )+) => {
        crate::support::table::table! {
            /// What kind of problem a diagnostic reports. `E…` are errors, `W…` warnings, `N…` notes.
            pub enum Code in CODES: [CodeDef] {
                $( $(#[doc = $doc])+ $variant => CodeDef {
                    code: Code::$variant,
                    id: $id,
                    name: $name,
                    summary: concat!($($doc),+),
                }, )+
            }
        }
    };
}

codes! {
    /// The profile is not valid TOML (including duplicate keys) or not UTF-8.
    TomlSyntax = "E0100", "toml-syntax";
    /// `edition` is missing or is not "A" or "B".
    Edition = "E0200", "edition";
    /// A key or table the profile format does not have.
    UnknownKey = "E0201", "unknown-key";
    /// A key that exists only in the other edition.
    OtherEdition = "E0202", "other-edition";
    /// A value of the wrong TOML type.
    WrongType = "E0203", "wrong-type";
    /// A value outside the allowed set.
    NotAllowed = "E0204", "not-allowed";
    /// A number out of range.
    OutOfRange = "E0205", "out-of-range";
    /// A string of the wrong form (URL, host name, path, host:port).
    BadFormat = "E0206", "bad-format";
    /// `persistence.type = "hybrid"` without a mapping.
    HybridMissing = "E0207", "hybrid-missing";
    /// A hybrid mapping lacks one of its keys.
    HybridKeyMissing = "E0208", "hybrid-key-missing";
    /// A hybrid mapping has a key that is not a data category.
    HybridKeyUnknown = "E0209", "hybrid-key-unknown";
    /// A value another setting makes necessary is missing.
    Required = "E0210", "required";
    /// A plugin name that cannot be one.
    PluginName = "E0211", "plugin-name";
    /// An `[env]` name that is not a valid environment variable name.
    EnvName = "E0212", "env-name";
    /// An `[env]` name that is a spec variable: use its profile key.
    EnvIsSpecVar = "E0213", "env-is-spec-var";
    /// A value a target cannot write without changing it.
    Unwritable = "E0214", "unwritable";
    /// A secret reference that cannot be read.
    SecretUnavailable = "E0215", "secret-unavailable";
    /// A control character (NUL, ...) in a value.
    ControlChar = "E0216", "control-char";
    /// Settings of a group that is not chosen.
    NotApplied = "W0301", "not-applied";
    /// `wait.sleep_duration` is above `wait.max_time`.
    SleepAboveMax = "W0302", "sleep-above-max";
    /// The secret manager runs on the container's fixed default passphrase.
    DefaultPassphrase = "W0303", "default-passphrase";
    /// TLS without certificate verification.
    TlsUnverified = "W0304", "tls-unverified";
    /// Plain http to a host that is not this machine.
    PlainHttp = "W0305", "plain-http";
    /// A variable outside the spec, passed through.
    EnvPassthrough = "W0306", "env-passthrough";
    /// A secret written in clear text in the profile.
    SecretInProfile = "W0307", "secret-in-profile";
    /// Settings that exclude each other, or one that needs another.
    Conflict = "E0217", "conflict";
    /// An `extends` that cannot be followed: a missing file or a cycle.
    Extends = "E0218", "extends";
    /// A file source declared for a variable or plugin that is not used.
    UnusedSource = "W0308", "unused-source";
    /// A secret or key file taken from a ConfigMap (stored in clear).
    SecretInConfigMap = "W0309", "secret-in-configmap";
    /// A compose host path that does not exist.
    HostPathMissing = "W0310", "host-path-missing";
    /// A plugin listed without an archive source: the container ignores it.
    PluginWithoutArchive = "W0311", "plugin-without-archive";
    /// An imported file that is not valid `.env`, YAML or UTF-8.
    InputSyntax = "E0219", "input-syntax";
    /// An imported file without an environment to read, with several and none chosen, or naming
    /// a file or ConfigMap that cannot be found.
    InputShape = "E0220", "input-shape";
    /// `CN_HYBRID_MAPPING` is not valid JSON: the container stops at start-up.
    HybridJson = "E0221", "hybrid-json";
    /// A setting of edition A that edition B has no equivalent for (migrate).
    NoEquivalent = "E0222", "no-equivalent";
    /// A `${VAR}` / `$(VAR)` placeholder kept as literal text, not expanded.
    Placeholder = "W0312", "placeholder";
    /// A boolean written other than `true` / `false`.
    NonCanonicalBool = "W0313", "non-canonical-bool";
    /// A value the container silently replaces by its default.
    FallsBack = "W0314", "falls-back";
    /// A variable set to the empty string, which the container treats differently from unset.
    EmptyValue = "W0315", "empty-value";
    /// An old variable name the container no longer reads.
    LegacyName = "W0316", "legacy-name";
    /// A variable the spec does not have: passed on unchecked (the image may still read it).
    UnknownVariable = "W0317", "unknown-variable";
    /// A value overridden by a later definition of the same variable.
    Overridden = "W0318", "overridden";
    /// An unquoted YAML value that YAML readers take as a boolean, number or null.
    YamlTyped = "W0319", "yaml-typed";
    /// Something of the imported file that a profile cannot carry: left out.
    NotImported = "W0320", "not-imported";
    /// Two files mounted at one path in the container (Kubernetes and Docker refuse it).
    MountCollision = "E0240", "mount-collision";
    /// A Secret/ConfigMap key or mount path derived from a file path that Kubernetes or compose would refuse.
    DerivedName = "E0241", "derived-name";
    /// A value beyond what a Kubernetes field accepts (int32, name length or form, label value).
    K8sLimit = "E0242", "k8s-limit";
    /// Files of one generated Secret or ConfigMap that kustomize cannot generate together.
    Generator = "E0243", "generator";
    /// A KRM `ResourceList` (stdin of `svcgen krm`) that is not what a KRM function reads.
    KrmInput = "E0244", "krm-input";
    /// A `.env` value that one of the readers people use (compose v2, python-dotenv,
    /// `docker run --env-file`) would read differently: no spelling suits them all.
    DotenvReaderDiffers = "W0327", "dotenv-reader-differs";
    /// An unquoted compose value whose number compose writes in a form svcgen cannot reproduce.
    ComposeNumber = "E0223", "compose-number";
    /// A quoted `.env` value holding a raw carriage return: its readers disagree.
    CarriageReturnInQuotes = "E0224", "carriage-return-in-quotes";
    /// A secret variable under an old name in `[env]`, where it would be written in clear text.
    SecretOldName = "E0225", "secret-old-name";
    /// A host file the kustomize base copies (`[deploy.files]`, `[deploy.plugins]`) that cannot
    /// be read.
    HostFileUnreadable = "E0245", "host-file-unreadable";
    /// A rendered file on disk that differs from what svcgen writes now (`render --check`,
    /// `docs --check`).
    StaleOutput = "E0250", "stale-output";
    /// A setting the real image cannot run with: a read-only root file system, another port or
    /// user than its own, a memory limit no container starts with, a file mounted at or over a
    /// path it writes, an empty path of a file it opens at start.
    ImageRefuses = "E0251", "image-refuses";
    /// A `[deploy]` setting below how the real image is known to run (resource limits under its
    /// upstream chart's).
    ImageDiffers = "W0330", "image-differs";
    /// A file the image opens at start (a credential file of an adapter or backend, edition A's
    /// SSA file) with no source that a deployment rendered mounts.
    CredentialFileMissing = "W0331", "credential-file-missing";
    /// A port the container ignores (the LDAP port follows `use_ssl`).
    PortIgnored = "W0332", "port-ignored";
    /// A default that points at the pod itself in a real deployment (`localhost`).
    PointsAtPod = "W0333", "points-at-pod";
    /// A value filled in at deploy time (`{ deploy_env = "X" }`): the Kubernetes targets cannot
    /// carry it (`validate`; `render` of those targets refuses it, E0214).
    DeployTimeValue = "W0334", "deploy-time-value";
    /// The RoleBindings svcgen renders bind the pods' service account in a namespace guessed
    /// from an adapter's, as `deploy.namespace` is unset (the pods land in kubectl's context).
    BindingNamespace = "W0340", "binding-namespace";
    /// A `kubernetes` adapter whose client finds no Kubernetes API configuration where the target
    /// runs the container (`use_kube_config` in a pod; the in-cluster one in compose).
    KubeApiConfig = "W0341", "kube-api-config";
    /// A workload's probes end the container's start before the image's worst-case start (its
    /// timeline, `explain --start`): it is restarted while it legitimately waits.
    ProbeEndsStart = "W0342", "probe-ends-start";
    /// The pod's service account has no grant in the stream's Roles for a verb the image calls
    /// on the object of its `kubernetes` config or secret adapter.
    RbacMissingGrant = "W0343", "rbac-missing-grant";
    /// The stream has no RBAC objects at all (`kubectl get deploy,cm`): what the pod may do
    /// through the Kubernetes API is not judged. A note: it never changes the exit code.
    NoRbacObjects = "N0400", "no-rbac-objects";
    /// A file of another kind (a compose file, a `.env`, manifests) where a profile is read.
    WrongFile = "E0246", "wrong-file";
    /// A variable outside the spec that the image's client reads ahead of a spec setting: set,
    /// it replaces the setting's value (or, without the variables it needs, is ignored).
    ImageReplaces = "W0346", "image-replaces";
    /// A spec default left unset that does not fit another choice of the profile (MySQL's port
    /// with the PostgreSQL dialect, an adapter's namespace other than `deploy.namespace`).
    DefaultMisfits = "W0347", "default-misfits";
    /// An image tag that moves, with a backend or variable its current build no longer has.
    MovingTag = "W0344", "moving-tag";
    /// A host file the image cannot use: one its user cannot read through a compose bind mount,
    /// or an SSA file that is not a JWT with `iss` and `org_id` in its payload.
    ImageFileUnusable = "W0345", "image-file-unusable";
}

impl Code {
    /// Every code, in the table's order.
    pub const ALL: [Code; CODES.len()] = {
        let mut out = [Code::TomlSyntax; CODES.len()];
        let mut i = 0;
        while i < CODES.len() {
            out[i] = Code::VARIANTS[i];
            i += 1;
        }
        out
    };

    /// The code's row.
    pub fn def(self) -> &'static CodeDef {
        self.row()
    }

    /// The code `text` names: its id (any case) or its name.
    pub fn find(text: &str) -> Option<Code> {
        CODES
            .iter()
            .find(|row| row.id.eq_ignore_ascii_case(text) || row.name == text)
            .map(|row| row.code)
    }

    /// The stable code, e.g. `E0201`.
    pub fn id(self) -> &'static str {
        self.def().id
    }

    /// A readable name for the code, used in JSON output.
    pub fn name(self) -> &'static str {
        self.def().name
    }

    /// What the code reports, in one sentence (its doc comment, lines joined by spaces).
    pub fn summary(self) -> &'static str {
        self.def().summary.trim()
    }

    /// An error for an `E…` id, a warning for a `W…` id, a note for an `N…` id.
    pub fn severity(self) -> Severity {
        match self.id().as_bytes().first() {
            Some(b'W') => Severity::Warning,
            Some(b'N') => Severity::Note,
            _ => Severity::Error,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{CODES, Code};
    use std::collections::HashSet;

    #[test]
    fn codes_and_names_are_unique() {
        let ids: HashSet<_> = CODES.iter().map(|c| c.id).collect();
        let names: HashSet<_> = CODES.iter().map(|c| c.name).collect();
        assert_eq!(ids.len(), CODES.len());
        assert_eq!(names.len(), CODES.len());
        for row in CODES {
            assert!(
                row.id.len() == 5 && ['E', 'W', 'N'].iter().any(|c| row.id.starts_with(*c)),
                "{row:?}"
            );
            assert_eq!(Code::find(row.name), Some(row.code));
            assert_eq!(Code::find(&row.id.to_lowercase()), Some(row.code));
        }
    }
}
