//! Stable diagnostic codes. Codes are never reused; a retired code keeps its number.

use super::Severity;

/// What kind of problem a diagnostic reports. `E…` are errors, `W…` warnings.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Code {
    /// The profile is not valid TOML (including duplicate keys) or not UTF-8.
    TomlSyntax,
    /// `edition` is missing or is not "A" or "B".
    Edition,
    /// A key or table the profile format does not have.
    UnknownKey,
    /// A key that exists only in the other edition.
    OtherEdition,
    /// A value of the wrong TOML type.
    WrongType,
    /// A value outside the allowed set.
    NotAllowed,
    /// A number out of range.
    OutOfRange,
    /// A string of the wrong form (URL, host name, path, host:port).
    BadFormat,
    /// `persistence.type = "hybrid"` without a mapping.
    HybridMissing,
    /// A hybrid mapping lacks one of its keys.
    HybridKeyMissing,
    /// A hybrid mapping has a key that is not a data category.
    HybridKeyUnknown,
    /// A value another setting makes necessary is missing.
    Required,
    /// A plugin name that cannot be one.
    PluginName,
    /// An `[env]` name that is not a valid environment variable name.
    EnvName,
    /// An `[env]` name that is a spec variable: use its profile key.
    EnvIsSpecVar,
    /// A value a target cannot write without changing it.
    Unwritable,
    /// A secret reference that cannot be read.
    SecretUnavailable,
    /// A control character (NUL, ...) in a value.
    ControlChar,
    /// Settings that exclude each other, or one that needs another.
    Conflict,
    /// An `extends` that cannot be followed: a missing file or a cycle.
    Extends,
    /// Settings of a group that is not chosen.
    NotApplied,
    /// `wait.sleep_duration` is above `wait.max_time`.
    SleepAboveMax,
    /// The secret manager runs on the container's fixed default passphrase.
    DefaultPassphrase,
    /// TLS without certificate verification.
    TlsUnverified,
    /// Plain http to a host that is not this machine.
    PlainHttp,
    /// A variable outside the spec, passed through.
    EnvPassthrough,
    /// A secret written in clear text in the profile.
    SecretInProfile,
    /// A file source declared for a variable or plugin that is not used.
    UnusedSource,
    /// A secret or key file taken from a ConfigMap (stored in clear).
    SecretInConfigMap,
    /// A compose host path that does not exist.
    HostPathMissing,
    /// A plugin listed without an archive source: the container ignores it.
    PluginWithoutArchive,
    /// An imported file that is not valid `.env`, YAML or UTF-8.
    InputSyntax,
    /// An imported file without an environment to read, with several and none chosen, or naming
    /// a file or ConfigMap that cannot be found.
    InputShape,
    /// `CN_HYBRID_MAPPING` is not valid JSON: the container stops at start-up.
    HybridJson,
    /// A setting of edition A that edition B has no equivalent for (migrate).
    NoEquivalent,
    /// A `${VAR}` / `$(VAR)` placeholder kept as literal text, not expanded.
    Placeholder,
    /// A boolean written other than `true` / `false`.
    NonCanonicalBool,
    /// A value the container silently replaces by its default.
    FallsBack,
    /// A variable set to the empty string, which the container treats differently from unset.
    EmptyValue,
    /// An old variable name the container no longer reads.
    LegacyName,
    /// A variable the spec does not have: passed on unchecked (the image may still read it).
    UnknownVariable,
    /// A value overridden by a later definition of the same variable.
    Overridden,
    /// An unquoted YAML value that YAML readers take as a boolean, number or null.
    YamlTyped,
    /// Something of the imported file that a profile cannot carry: left out.
    NotImported,
    /// Two files mounted at one path in the container (Kubernetes and Docker refuse it).
    MountCollision,
    /// A Secret/ConfigMap key or mount path derived from a file path that Kubernetes or compose would refuse.
    DerivedName,
    /// A value beyond what a Kubernetes field accepts (int32, name length or form, label value).
    K8sLimit,
    /// Files of one generated Secret or ConfigMap that kustomize cannot generate together.
    Generator,
    /// A KRM `ResourceList` (stdin of `svcgen krm`) that is not what a KRM function reads.
    KrmInput,
    /// A `.env` value that one of the readers people use (compose v2, python-dotenv,
    /// `docker run --env-file`) would read differently: no spelling suits them all.
    DotenvReaderDiffers,
    /// An unquoted compose value whose number compose writes in a form svcgen cannot reproduce.
    ComposeNumber,
    /// A quoted `.env` value holding a raw carriage return: its readers disagree.
    CarriageReturnInQuotes,
    /// A secret variable under an old name in `[env]`, where it would be written in clear text.
    SecretOldName,
    /// A host file the kustomize base copies (`[deploy.files]`, `[deploy.plugins]`) that cannot
    /// be read.
    HostFileUnreadable,
    /// A rendered file on disk that differs from what svcgen writes now (`render --check`,
    /// `docs --check`).
    StaleOutput,
    /// A `[deploy]` setting the real image cannot run with (a read-only root file system).
    ImageRefuses,
    /// A `[deploy]` setting that differs from how the real image runs (its port, its user).
    ImageDiffers,
    /// A credential file an adapter or backend reads, with no source for the container.
    CredentialFileMissing,
    /// A port the container ignores (the LDAP port follows `use_ssl`).
    PortIgnored,
    /// A default that points at the pod itself in a real deployment (`localhost`).
    PointsAtPod,
    /// A value filled in at deploy time (`{ deploy_env = "X" }`): the Kubernetes targets cannot
    /// carry it (`validate`; `render` of those targets refuses it, E0214).
    DeployTimeValue,
    /// A file of another kind (a compose file, a `.env`, manifests) where a profile is read.
    WrongFile,
}

impl Code {
    pub const ALL: [Code; 62] = [
        Code::TomlSyntax,
        Code::Edition,
        Code::UnknownKey,
        Code::OtherEdition,
        Code::WrongType,
        Code::NotAllowed,
        Code::OutOfRange,
        Code::BadFormat,
        Code::HybridMissing,
        Code::HybridKeyMissing,
        Code::HybridKeyUnknown,
        Code::Required,
        Code::PluginName,
        Code::EnvName,
        Code::EnvIsSpecVar,
        Code::Unwritable,
        Code::SecretUnavailable,
        Code::ControlChar,
        Code::NotApplied,
        Code::SleepAboveMax,
        Code::DefaultPassphrase,
        Code::TlsUnverified,
        Code::PlainHttp,
        Code::EnvPassthrough,
        Code::SecretInProfile,
        Code::Conflict,
        Code::Extends,
        Code::UnusedSource,
        Code::SecretInConfigMap,
        Code::HostPathMissing,
        Code::PluginWithoutArchive,
        Code::InputSyntax,
        Code::InputShape,
        Code::HybridJson,
        Code::NoEquivalent,
        Code::Placeholder,
        Code::NonCanonicalBool,
        Code::FallsBack,
        Code::EmptyValue,
        Code::LegacyName,
        Code::UnknownVariable,
        Code::Overridden,
        Code::YamlTyped,
        Code::NotImported,
        Code::MountCollision,
        Code::DerivedName,
        Code::K8sLimit,
        Code::Generator,
        Code::KrmInput,
        Code::DotenvReaderDiffers,
        Code::ComposeNumber,
        Code::CarriageReturnInQuotes,
        Code::SecretOldName,
        Code::HostFileUnreadable,
        Code::StaleOutput,
        Code::ImageRefuses,
        Code::ImageDiffers,
        Code::CredentialFileMissing,
        Code::PortIgnored,
        Code::PointsAtPod,
        Code::DeployTimeValue,
        Code::WrongFile,
    ];

    /// The stable code, e.g. `E0201`.
    pub fn id(self) -> &'static str {
        match self {
            Code::TomlSyntax => "E0100",
            Code::Edition => "E0200",
            Code::UnknownKey => "E0201",
            Code::OtherEdition => "E0202",
            Code::WrongType => "E0203",
            Code::NotAllowed => "E0204",
            Code::OutOfRange => "E0205",
            Code::BadFormat => "E0206",
            Code::HybridMissing => "E0207",
            Code::HybridKeyMissing => "E0208",
            Code::HybridKeyUnknown => "E0209",
            Code::Required => "E0210",
            Code::PluginName => "E0211",
            Code::EnvName => "E0212",
            Code::EnvIsSpecVar => "E0213",
            Code::Unwritable => "E0214",
            Code::SecretUnavailable => "E0215",
            Code::ControlChar => "E0216",
            Code::Conflict => "E0217",
            Code::Extends => "E0218",
            Code::NotApplied => "W0301",
            Code::SleepAboveMax => "W0302",
            Code::DefaultPassphrase => "W0303",
            Code::TlsUnverified => "W0304",
            Code::PlainHttp => "W0305",
            Code::EnvPassthrough => "W0306",
            Code::SecretInProfile => "W0307",
            Code::UnusedSource => "W0308",
            Code::SecretInConfigMap => "W0309",
            Code::HostPathMissing => "W0310",
            Code::PluginWithoutArchive => "W0311",
            Code::InputSyntax => "E0219",
            Code::InputShape => "E0220",
            Code::HybridJson => "E0221",
            Code::NoEquivalent => "E0222",
            Code::Placeholder => "W0312",
            Code::NonCanonicalBool => "W0313",
            Code::FallsBack => "W0314",
            Code::EmptyValue => "W0315",
            Code::LegacyName => "W0316",
            Code::UnknownVariable => "W0317",
            Code::Overridden => "W0318",
            Code::YamlTyped => "W0319",
            Code::NotImported => "W0320",
            Code::MountCollision => "E0240",
            Code::DerivedName => "E0241",
            Code::K8sLimit => "E0242",
            Code::Generator => "E0243",
            Code::KrmInput => "E0244",
            Code::DotenvReaderDiffers => "W0327",
            Code::ComposeNumber => "E0223",
            Code::CarriageReturnInQuotes => "E0224",
            Code::SecretOldName => "E0225",
            Code::HostFileUnreadable => "E0245",
            Code::StaleOutput => "E0250",
            Code::ImageRefuses => "E0251",
            Code::ImageDiffers => "W0330",
            Code::CredentialFileMissing => "W0331",
            Code::PortIgnored => "W0332",
            Code::PointsAtPod => "W0333",
            Code::DeployTimeValue => "W0334",
            Code::WrongFile => "E0246",
        }
    }

    /// A readable name for the code, used in JSON output.
    pub fn name(self) -> &'static str {
        match self {
            Code::TomlSyntax => "toml-syntax",
            Code::Edition => "edition",
            Code::UnknownKey => "unknown-key",
            Code::OtherEdition => "other-edition",
            Code::WrongType => "wrong-type",
            Code::NotAllowed => "not-allowed",
            Code::OutOfRange => "out-of-range",
            Code::BadFormat => "bad-format",
            Code::HybridMissing => "hybrid-missing",
            Code::HybridKeyMissing => "hybrid-key-missing",
            Code::HybridKeyUnknown => "hybrid-key-unknown",
            Code::Required => "required",
            Code::PluginName => "plugin-name",
            Code::EnvName => "env-name",
            Code::EnvIsSpecVar => "env-is-spec-var",
            Code::Unwritable => "unwritable",
            Code::SecretUnavailable => "secret-unavailable",
            Code::ControlChar => "control-char",
            Code::Conflict => "conflict",
            Code::Extends => "extends",
            Code::NotApplied => "not-applied",
            Code::SleepAboveMax => "sleep-above-max",
            Code::DefaultPassphrase => "default-passphrase",
            Code::TlsUnverified => "tls-unverified",
            Code::PlainHttp => "plain-http",
            Code::EnvPassthrough => "env-passthrough",
            Code::SecretInProfile => "secret-in-profile",
            Code::UnusedSource => "unused-source",
            Code::SecretInConfigMap => "secret-in-configmap",
            Code::HostPathMissing => "host-path-missing",
            Code::PluginWithoutArchive => "plugin-without-archive",
            Code::InputSyntax => "input-syntax",
            Code::InputShape => "input-shape",
            Code::HybridJson => "hybrid-json",
            Code::NoEquivalent => "no-equivalent",
            Code::Placeholder => "placeholder",
            Code::NonCanonicalBool => "non-canonical-bool",
            Code::FallsBack => "falls-back",
            Code::EmptyValue => "empty-value",
            Code::LegacyName => "legacy-name",
            Code::UnknownVariable => "unknown-variable",
            Code::Overridden => "overridden",
            Code::YamlTyped => "yaml-typed",
            Code::NotImported => "not-imported",
            Code::MountCollision => "mount-collision",
            Code::DerivedName => "derived-name",
            Code::K8sLimit => "k8s-limit",
            Code::Generator => "generator",
            Code::KrmInput => "krm-input",
            Code::DotenvReaderDiffers => "dotenv-reader-differs",
            Code::ComposeNumber => "compose-number",
            Code::CarriageReturnInQuotes => "carriage-return-in-quotes",
            Code::SecretOldName => "secret-old-name",
            Code::HostFileUnreadable => "host-file-unreadable",
            Code::StaleOutput => "stale-output",
            Code::ImageRefuses => "image-refuses",
            Code::ImageDiffers => "image-differs",
            Code::CredentialFileMissing => "credential-file-missing",
            Code::PortIgnored => "port-ignored",
            Code::PointsAtPod => "points-at-pod",
            Code::DeployTimeValue => "deploy-time-value",
            Code::WrongFile => "wrong-file",
        }
    }

    pub fn severity(self) -> Severity {
        if self.id().starts_with('W') {
            Severity::Warning
        } else {
            Severity::Error
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Code;
    use std::collections::HashSet;

    #[test]
    fn codes_and_names_are_unique() {
        let ids: HashSet<_> = Code::ALL.iter().map(|c| c.id()).collect();
        let names: HashSet<_> = Code::ALL.iter().map(|c| c.name()).collect();
        assert_eq!(ids.len(), Code::ALL.len());
        assert_eq!(names.len(), Code::ALL.len());
    }
}
