//! Types of the spec model, and their reading from `schemas/spec.toml`.

use super::Condition;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;

/// The model `build.rs` wrote out as code from `schemas/spec.toml` (a child module: it builds
/// the raw types below, whose fields are private).
#[path = "baked.rs"]
pub(super) mod baked;

/// One of the two editions of the container's configuration surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Deserialize)]
pub enum Edition {
    A,
    B,
}

impl Edition {
    pub const ALL: [Edition; 2] = [Edition::A, Edition::B];

    pub const fn as_str(self) -> &'static str {
        match self {
            Edition::A => "A",
            Edition::B => "B",
        }
    }

    /// The other edition.
    pub fn other(self) -> Edition {
        match self {
            Edition::A => Edition::B,
            Edition::B => Edition::A,
        }
    }

    pub fn parse(text: &str) -> Option<Edition> {
        match text {
            "A" => Some(Edition::A),
            "B" => Some(Edition::B),
            _ => None,
        }
    }
}

impl fmt::Display for Edition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Facts of one edition that are not variables.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EditionInfo {
    pub id: Edition,
    /// The unstable image tag the spec names for this edition.
    pub image_tag: String,
    /// Where the model's facts about this edition's image were read (upstream repository,
    /// commit and image version): DEPLOY.md names it.
    pub facts_from: String,
    /// `image_tag` moves (a nightly): what its current build no longer has.
    #[serde(default)]
    pub moving_tag: Option<MovingTag>,
}

/// An edition's tag that moves (upstream behaviour): the build it points at changes, and at the
/// commit the model last checked it no longer has some backends the spec (and the model's
/// facts) still list for the edition.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovingTag {
    /// The upstream commit (and date) of the build last checked.
    pub checked_at: String,
    /// The persistence backends that build no longer has.
    pub dropped_backends: Vec<String>,
    /// What shows it upstream (files and lines, pull requests).
    pub why: String,
    /// The tag that matches the model's facts, to pin instead, and what it is.
    pub pin: String,
    pub pin_note: String,
}

/// Which keys decide the persistence backends in use (`{ backend = "x" }` conditions).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BackendRule {
    /// The key naming one backend (`persistence.type`).
    pub selector: String,
    /// The key of the per-category mapping (`persistence.hybrid`).
    pub mapping: String,
    /// The selector value that defers to the mapping (`hybrid`).
    pub mixed: String,
}

/// A set of variables chosen together, with the conditions (any of) under which it applies.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Group {
    pub id: String,
    pub title: String,
    /// The spec section that documents it.
    pub section: String,
    /// Empty: the group always applies.
    #[serde(default)]
    pub when: Vec<Condition>,
}

/// How a variable's value is checked and written: the spec names the type, and its rules live in
/// `crate::value_type` (its `rules()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum VarType {
    String,
    Enum,
    Bool,
    Port,
    Integer,
    /// An absolute http(s) URL.
    Url,
    /// An absolute http(s) URL without a trailing slash.
    BaseUrl,
    /// A bare host name or IP address.
    Hostname,
    /// `host:port`.
    HostPort,
    /// A host name or IP address with an optional `:port` (the image joins `https://<value>`).
    Authority,
    /// A URL path starting with `/`.
    UrlPath,
    /// The path of a file the container reads.
    File,
    /// A list of plugin names, written comma-joined.
    PluginList,
    /// The hybrid persistence mapping, written as compact JSON.
    HybridMapping,
    /// A secret value, never written in clear text unless asked.
    Secret,
    /// A Kubernetes object name (DNS-1123 label: lower-case letters, digits, `-`).
    K8sName,
    /// An image repository (`registry/path/name`).
    Image,
    /// An image tag.
    ImageTag,
    /// A Kubernetes resource quantity (`500m`, `2Gi`).
    Quantity,
}

/// The unit of an integer variable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum Unit {
    #[serde(rename = "ms")]
    Milliseconds,
    #[serde(rename = "s")]
    Seconds,
}

impl Unit {
    pub fn words(self) -> &'static str {
        match self {
            Unit::Milliseconds => "milliseconds",
            Unit::Seconds => "seconds",
        }
    }
}

/// What kind of file a file-path variable names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FileKind {
    Certificate,
    Key,
    Secret,
    /// A plugin archive (not a variable of the spec; plugins are listed by name).
    Archive,
}

impl FileKind {
    pub fn name(self) -> &'static str {
        match self {
            FileKind::Certificate => "certificate",
            FileKind::Key => "private key",
            FileKind::Secret => "secret",
            FileKind::Archive => "plugin archive",
        }
    }
}

/// A variable's default as the spec gives it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DefaultValue {
    /// A value (possibly the empty string).
    Value(String),
    /// The spec says "not shown": svcgen must not invent one.
    NotShown,
    /// The spec says the variable is unset by default.
    Unset,
    /// The container has a fixed default that the spec does not show.
    Hidden,
    /// (Deployment settings) the edition's image tag.
    ByEdition,
    /// (Deployment settings) computed from another setting, as its meaning says.
    Derived,
}

impl DefaultValue {
    /// The value the container falls back to, when the spec shows one.
    pub fn value(&self) -> Option<&str> {
        match self {
            DefaultValue::Value(v) => Some(v),
            _ => None,
        }
    }

    /// How docs and `explain` describe it.
    pub fn describe(&self) -> String {
        match self {
            DefaultValue::Value(v) if v.is_empty() => "empty string".to_string(),
            DefaultValue::Value(v) => format!("`{v}`"),
            DefaultValue::NotShown => "not shown".to_string(),
            DefaultValue::Unset => "unset".to_string(),
            DefaultValue::Hidden => "a fixed default word (not shown)".to_string(),
            DefaultValue::ByEdition => "the edition's image tag".to_string(),
            DefaultValue::Derived => "derived (see meaning)".to_string(),
        }
    }
}

/// One variable in one or both editions.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub env: String,
    pub key: String,
    pub group: String,
    pub editions: Vec<Edition>,
    pub ty: VarType,
    pub default: DefaultValue,
    /// Allowed values; `None` when there is no list (or the spec does not show it).
    pub allowed: Option<Vec<String>>,
    /// True when the spec says the allowed values are "not shown".
    pub allowed_not_shown: bool,
    pub unit: Option<Unit>,
    pub min: Option<i64>,
    pub file: Option<FileKind>,
    pub secret: bool,
    pub selector: bool,
    pub restart: Option<String>,
    /// A value must be given whenever the variable applies.
    pub required: bool,
    /// Profile key of a variable this one should not exceed.
    pub not_above: Option<String>,
    /// Other names users write for allowed values (`postgres` for `pgsql`).
    pub aliases: BTreeMap<String, String>,
    pub mapping_keys: Vec<String>,
    /// For a plugin list: where each archive is mounted; `<name>` stands for the plugin.
    pub mount_path: Option<String>,
    pub meaning: String,
    pub note: Option<String>,
    /// Old names the container no longer reads (`CN_VAULT_URL` for `CN_SECRET_VAULT_ADDR`).
    pub legacy: Vec<String>,
    /// The container silently uses the default when the value is not an integer (and the
    /// minimum when it is below it).
    pub falls_back: bool,
    /// A file the image opens on every try of its startup wait: without it the wait runs out
    /// (upstream behaviour).
    pub needed_at_start: bool,
    /// The texts the image puts the value into as it is (upstream behaviour): each one's
    /// characters only. Shared: many variables name one row, which is read once.
    pub consumers: Vec<Arc<Consumer>>,
    /// How the image's client reads the address (upstream behaviour), beyond its form.
    pub address: Option<Address>,
    /// A host the deployed container's users reach through it: a loopback value (the default
    /// `localhost`) points at the pod itself once deployed.
    pub reached_from_outside: bool,
    /// The address of a service the container connects to: left at its loopback default, it
    /// points at the container itself once deployed (a loopback the profile writes may be a
    /// sidecar, and is not flagged).
    pub reached_by_container: bool,
}

/// How a client of the image reads an address value (upstream behaviour).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Address {
    /// A URL the client appends `/v1/…` to (hvac): no path ending in `/v1`.
    ApiBase,
    /// Host names the client puts into `https://<host>:<port>/…` itself: no scheme, port or
    /// IPv6 literal.
    HostsOnly,
    /// A host the client puts into `http://<host>:<port>`: an IPv6 address in brackets.
    Ipv6Bracketed,
    /// A host the client takes as it is: an IPv6 address without brackets.
    Ipv6Bare,
    /// An address the client splits on `:`: no IPv6 address at all.
    NoIpv6,
}

/// A text the image puts values into as they are (upstream behaviour; the model's
/// `[[consumer]]`): what it is, and which characters it takes, as data. The one check of raw
/// values and the editor schema's patterns (`value_type::consumer`) read these fields.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Consumer {
    pub id: String,
    /// What the text is, for messages, docs and `explain`.
    pub what: String,
    /// Characters that break it.
    #[serde(default)]
    pub forbid: Vec<char>,
    /// Control characters break it.
    #[serde(default)]
    pub control: bool,
    /// White space anywhere breaks it.
    #[serde(default)]
    pub white_space: bool,
    /// White space at either end breaks it (or is dropped).
    #[serde(default)]
    pub trimmed: bool,
    /// When not empty, the only characters it takes: single characters or ranges `A-Z`.
    #[serde(default)]
    pub only: Vec<String>,
    /// When not empty, what its first character must be (as `only`).
    #[serde(default)]
    pub first: Vec<String>,
    /// It takes characters up to U+00FF only.
    #[serde(default)]
    pub latin1: bool,
    /// Words it reads as keywords, in any case.
    #[serde(default)]
    pub reserved: Vec<String>,
    /// When not empty, what its last character must be (as `only`).
    #[serde(default)]
    pub last: Vec<String>,
    /// The fewest and most characters it takes (a server's documented length).
    #[serde(default)]
    pub min_len: Option<usize>,
    #[serde(default)]
    pub max_len: Option<usize>,
    /// Beginnings that break it (hvac puts an AppRole mount after `auth/` itself).
    #[serde(default)]
    pub not_prefix: Vec<String>,
    /// Where the rule is documented (the server's reference): documentation of the model.
    #[serde(default)]
    pub source: Option<String>,
}

impl Consumer {
    /// The characters of `only` or `first` as inclusive ranges; `None` when an item is neither one
    /// character nor `a-z`.
    pub fn ranges(items: &[String]) -> Option<Vec<(char, char)>> {
        items
            .iter()
            .map(|item| {
                let chars: Vec<char> = item.chars().collect();
                match chars.as_slice() {
                    [one] => Some((*one, *one)),
                    [low, '-', high] if low <= high => Some((*low, *high)),
                    _ => None,
                }
            })
            .collect()
    }

    /// The model's own checks of the row: its character sets can be read and it says what it is.
    fn check(&self) -> Result<(), String> {
        for items in [&self.only, &self.first, &self.last] {
            if Self::ranges(items).is_none() {
                return Err(format!(
                    "consumer {}: `only` and `first` take single characters or ranges such as \"A-Z\"",
                    self.id
                ));
            }
        }
        let mut chars = (self.forbid.iter().copied()).chain(
            self.only
                .iter()
                .chain(&self.first)
                .chain(&self.last)
                .flat_map(|s| s.chars()),
        );
        if let Some(c) = chars.find(|c| u32::from(*c) > 0xFFFF) {
            // Patterns write characters as `\uHHHH`, which every engine reads alike.
            return Err(format!("consumer {}: {c:?} is beyond U+FFFF", self.id));
        }
        if self.what.trim().is_empty() {
            return Err(format!("consumer {}: `what` is empty", self.id));
        }
        Ok(())
    }
}

/// How the container reads values, beyond the spec's tables.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContainerFacts {
    /// The only values of a boolean the container reads as true; anything else is false.
    pub true_words: Vec<String>,
    /// Old name prefixes and the prefix that replaced them (`GLUU_` → `CN_`).
    pub legacy_prefixes: BTreeMap<String, String>,
    /// The profile keys of the startup health checks' time budget.
    pub startup_checks: StartupChecks,
    /// The verbs the image calls on the objects of a `kubernetes` adapter.
    pub api_verbs: Vec<String>,
    /// Those of `api_verbs` that Kubernetes can restrict to named objects (`resourceNames`).
    pub api_verbs_by_name: Vec<String>,
    /// The objects a `kubernetes` adapter reads and writes.
    pub api_objects: Vec<ApiObject>,
    /// An address whose port the client ignores for the one its TLS switch implies.
    pub ignored_port: IgnoredPort,
    /// Spec defaults that do not fit another choice of the profile: the image uses the
    /// default whatever the choice (a warning when the variable is left unset).
    #[serde(default)]
    pub misfit_defaults: Vec<MisfitDefault>,
}

/// A spec default that does not fit when another variable has a value (`persistence.sql.port`'s
/// 3306 with the `pgsql` dialect): the value that fits then, and why.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MisfitDefault {
    /// The profile key of the variable whose default misfits.
    pub key: String,
    /// The profile key of the choice, and its value with which the default misfits.
    pub when: String,
    pub equals: String,
    /// The value that fits the choice.
    pub fits: String,
    /// Why the default does not fit.
    pub why: String,
}

/// Facts about the real image, not the spec (the model's `[image]`, upstream behaviour): what it
/// needs and does beyond the spec's variables. The checks of `[deploy]` against the image and
/// DEPLOY.md's "real image" section read them; nothing else names them.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageFacts {
    /// The file edition A's wait script refuses to start without, and its variable.
    pub ssa_file: ImageFile,
    /// The file the SQL client reads its password from (else the secret backend's
    /// `sql_password`), and its variable.
    pub sql_password_file: ImageFile,
    /// Where edition A's plugin builder looks for each archive (`<name>` is replaced).
    pub plugin_path: ImagePath,
    /// What the image writes at run time, in order.
    pub writes: Vec<WrittenPath>,
    /// Variables outside the spec the image reads (beyond `ssa_file` and the `image_name` of
    /// `[container] api_objects`), with what it reads from them.
    pub reads: Vec<ImageVar>,
    /// The least memory limit any container starts with (a Kubernetes quantity): below it the
    /// runtime refuses the container or fails to start it, whatever the image.
    pub least_memory_limit: String,
    /// What each persistence wait looks for, by the first data key mapped to its backend.
    pub waits_for: Vec<WaitedEntry>,
    /// How the `kubernetes` adapters' client reaches the Kubernetes API.
    pub kube_api: KubeApi,
    /// The Couchbase wait's ports, by its truststore switch.
    pub couchbase: CouchbaseFacts,
    /// The groups the image's user (`deploy.security.run_as_user`'s default) is in, per edition:
    /// a bind-mounted host file keeps its owner and mode, and the user reads it as one of them.
    pub user_groups: Vec<UserGroups>,
}

/// The entry a persistence wait looks for when `key` is the first data key mapped to its backend
/// (pycloudlib's `search_mapping`s): the LDAP entry and filter, the SQL and Spanner table (the row
/// is the DN's first RDN value), the Couchbase bucket's suffix (the document is `id_from_dn`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitedEntry {
    pub key: String,
    pub dn: String,
    pub filter: String,
    /// The SQL and Spanner waits' table; `None`: they only check the connection for this key.
    #[serde(default)]
    pub table: Option<String>,
    /// The Couchbase wait's bucket suffix; `None`: it only lists the buckets for this key.
    #[serde(default)]
    pub bucket_suffix: Option<String>,
    /// Where the fact was read: documentation of the model.
    pub source: String,
}

/// Where the Python `kubernetes` client finds the API: the in-cluster variables and service
/// account files, or the kubeconfig file (`~` is the home folder).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KubeApi {
    pub host: String,
    pub port: String,
    pub token: String,
    pub ca: String,
    pub kube_config: String,
    pub source: String,
}

/// The Couchbase client's REST and N1QL ports, with and without TLS (its truststore switch).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CouchbaseFacts {
    pub tls_ports: [u16; 2],
    pub plain_ports: [u16; 2],
    /// The variable of the user that replaces the spec's when set.
    pub superuser: String,
    pub superuser_password_file: SuperuserFile,
    pub superuser_password_key: String,
    /// The secret backend's key of the user's password, when its file is not there.
    pub password_key: String,
    /// The variable that turns certificate checks on (default false).
    pub verify: String,
    pub source: String,
}

impl CouchbaseFacts {
    /// What the Couchbase client reads from `env`, one of its variables outside the spec.
    pub fn reads(&self, env: &str) -> Option<String> {
        if env == self.superuser {
            Some("the Couchbase user that replaces the spec's when set".to_string())
        } else if env == self.superuser_password_file.env {
            Some(format!(
                "the path of the Couchbase superuser's password file (image default {})",
                self.superuser_password_file.path
            ))
        } else if env == self.verify {
            Some("whether the Couchbase client checks certificates".to_string())
        } else {
            None
        }
    }
}

/// A file the Couchbase client reads at `path` unless the variable `env` moves it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuperuserFile {
    pub env: String,
    pub path: String,
}

/// The group ids of the image's user in the image of `editions`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserGroups {
    pub editions: Vec<Edition>,
    pub gids: Vec<u32>,
}

/// A variable outside the spec that the image reads, what it reads from it and its default there.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageVar {
    pub env: String,
    pub what: String,
    pub default: String,
    /// The editions whose image reads it.
    pub editions: Vec<Edition>,
    /// The only values the image works with (its code compares the text); empty: any.
    #[serde(default)]
    pub works: Vec<String>,
    /// The empty string stops the image (`works` cannot list "anything but empty").
    #[serde(default)]
    pub not_empty: bool,
    /// White space alone (or nothing) stops the image: its code strips the value first.
    #[serde(default)]
    pub not_blank: bool,
    /// Why another value (or the empty one) stops or breaks the image: said with the refusal.
    #[serde(default)]
    pub why: String,
    /// The profile key whose value the image stops using when this variable is set (a name its
    /// client still honours ahead of the spec's): a warning names the key it replaces.
    #[serde(default)]
    pub replaces: Option<String>,
    /// Other variables (outside the spec) that must be set with this one for it to replace
    /// `replaces` (the vault client uses its host, port and scheme only when all three are set).
    #[serde(default)]
    pub together: Vec<String>,
    /// Where the fact was read (upstream file, line and commit): documentation of the model.
    pub source: String,
}

impl ImageVar {
    /// Why `value` stops or breaks the image, when it does (`works`, `not_empty`, `not_blank`).
    pub fn refuses(&self, value: &str) -> Option<&str> {
        let refused = (self.not_empty && value.is_empty())
            || (self.not_blank && value.trim().is_empty())
            || (!self.works.is_empty() && !self.works.iter().any(|w| w == value));
        refused.then_some(self.why.as_str())
    }
}

/// A file the image reads, at `path` unless the variable `env` (outside the spec) moves it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageFile {
    /// Its name under `[deploy.files]`, where the profile gives its source.
    pub key: String,
    pub env: String,
    pub path: String,
    /// The editions whose image reads it.
    pub editions: Vec<Edition>,
}

/// A path of the image that only some editions use.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImagePath {
    pub path: String,
    pub editions: Vec<Edition>,
}

/// A path the image writes at run time, and what it keeps there.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WrittenPath {
    pub path: String,
    pub what: String,
    /// Files inside `path` that it writes (relative to it): a mount over one stops it too.
    #[serde(default)]
    pub files: Vec<String>,
}

impl WrittenPath {
    /// Every path it writes that a mount must neither be at nor over: `path` and its `files`.
    pub fn paths(&self) -> impl Iterator<Item = String> + '_ {
        std::iter::once(self.path.clone())
            .chain(self.files.iter().map(|f| format!("{}/{f}", self.path)))
    }
}

/// The port of `address` is ignored: the client uses `when_true` or `when_false` after the
/// boolean `switch` (profile keys).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IgnoredPort {
    pub address: String,
    pub switch: String,
    pub when_true: u16,
    pub when_false: u16,
}

/// An object the image reads and writes through the Kubernetes API: in use when the variable of
/// its name applies (its adapter is `kubernetes`).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApiObject {
    /// The API resource (`configmaps`, `secrets`).
    pub resource: String,
    /// The profile key of the object's name.
    pub name: String,
    /// The profile key of its namespace.
    pub namespace: String,
    /// The profile key of the adapter's switch that loads `$HOME/.kube/config` instead of the
    /// in-cluster configuration.
    pub kube_config: String,
    /// Where the image reads the object's name instead, when that differs from the spec.
    pub image_name: Option<ImageName>,
}

/// A variable outside the spec from which the image reads a name (upstream behaviour), and the
/// image's default for it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageName {
    pub env: String,
    pub default: String,
}

/// The startup health checks: tried for `max_time` seconds, `sleep` seconds apart (profile keys
/// of integer variables). Kubernetes' startup probe is derived from their resolved values.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartupChecks {
    pub max_time: String,
    pub sleep: String,
}

/// A deployment setting: not a container variable, but checked and documented like one.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting {
    pub key: String,
    pub ty: VarType,
    pub default: DefaultValue,
    pub min: Option<i64>,
    pub meaning: String,
}

impl Var {
    /// The allowed value a user probably meant by `text`: a known alias (`postgres` → `pgsql`)
    /// or the closest of `allowed`.
    pub fn suggest_value<'a>(&'a self, text: &str, allowed: &'a [String]) -> Option<&'a str> {
        self.aliases
            .get(&text.to_ascii_lowercase())
            .map(String::as_str)
            .or_else(|| {
                crate::support::suggest::did_you_mean(text, allowed.iter().map(String::as_str))
            })
    }

    /// The key's last segment (`port` of `config.consul.port`).
    pub fn leaf(&self) -> &str {
        self.key.rsplit('.').next().unwrap_or(&self.key)
    }

    /// The editions as shown to people: "A", "B" or "A, B".
    pub fn editions_text(&self) -> String {
        self.editions
            .iter()
            .map(|e| e.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A word of the raw model that only selects or names something (a state, a consumer's id):
/// read, then dropped, so the baked model borrows it instead of allocating it.
type Word = std::borrow::Cow<'static, str>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawModel {
    backends: BackendRule,
    container: ContainerFacts,
    image: ImageFacts,
    start: super::start::StartFacts,
    setting: Vec<RawSetting>,
    edition: Vec<EditionInfo>,
    group: Vec<Group>,
    consumer: Vec<Consumer>,
    var: Vec<RawVar>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSetting {
    key: String,
    #[serde(rename = "type")]
    ty: VarType,
    default: Option<String>,
    default_state: Option<Word>,
    min: Option<i64>,
    meaning: String,
}

fn read_default(
    name: &str,
    default: Option<String>,
    state: Option<&str>,
) -> Result<DefaultValue, String> {
    match (default, state) {
        (Some(v), None) => Ok(DefaultValue::Value(v)),
        (None, Some("not-shown")) => Ok(DefaultValue::NotShown),
        (None, Some("unset")) => Ok(DefaultValue::Unset),
        (None, Some("hidden")) => Ok(DefaultValue::Hidden),
        (None, Some("by-edition")) => Ok(DefaultValue::ByEdition),
        (None, Some("derived")) => Ok(DefaultValue::Derived),
        _ => Err(format!(
            "{name}: give exactly one of `default` or `default_state` (not-shown, unset, hidden, by-edition, derived)"
        )),
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawVar {
    env: String,
    key: String,
    group: String,
    editions: Vec<Edition>,
    #[serde(rename = "type")]
    ty: VarType,
    default: Option<String>,
    default_state: Option<Word>,
    allowed: Option<Vec<String>>,
    allowed_state: Option<Word>,
    unit: Option<Unit>,
    min: Option<i64>,
    file: Option<FileKind>,
    #[serde(default)]
    secret: bool,
    #[serde(default)]
    selector: bool,
    restart: Option<String>,
    #[serde(default)]
    required: bool,
    not_above: Option<String>,
    #[serde(default)]
    aliases: BTreeMap<String, String>,
    #[serde(default)]
    mapping_keys: Vec<String>,
    mount_path: Option<String>,
    meaning: String,
    note: Option<String>,
    #[serde(default)]
    legacy: Vec<String>,
    #[serde(default)]
    falls_back: bool,
    #[serde(default)]
    needed_at_start: bool,
    #[serde(default)]
    consumers: Vec<Word>,
    address: Option<Address>,
    #[serde(default)]
    reached_from_outside: bool,
    #[serde(default)]
    reached_by_container: bool,
}

impl RawModel {
    /// The model, with every check: each variable's own ([`RawVar::into_var`]) and those across
    /// variables ([`check_across`]).
    pub(super) fn into_model(self) -> Result<super::Model, String> {
        let model = self.into_model_trusted()?;
        check_across(&model)?;
        Ok(model)
    }

    /// The model with each variable's own checks only: for the model baked from the same text
    /// at build time, whose checks across variables the test suite runs (`Model::parse` of the
    /// text, compared with the baked model), so that a run does not repeat them.
    pub(super) fn into_model_trusted(self) -> Result<super::Model, String> {
        for edition in Edition::ALL {
            if !self.edition.iter().any(|e| e.id == edition) {
                return Err(format!("edition {edition} is missing"));
            }
        }
        for (i, consumer) in self.consumer.iter().enumerate() {
            consumer.check()?;
            if self.consumer[..i].iter().any(|c| c.id == consumer.id) {
                return Err(format!("consumer {} is defined twice", consumer.id));
            }
        }
        let consumers: Vec<Arc<Consumer>> = self.consumer.into_iter().map(Arc::new).collect();
        let mut vars = Vec::with_capacity(self.var.len());
        for raw in self.var {
            vars.push(raw.into_var(&consumers)?);
        }
        if let Some(unused) = (consumers.iter()).find(|c| {
            !vars
                .iter()
                .any(|v| v.consumers.iter().any(|u| u.id == c.id))
        }) {
            return Err(format!("consumer {} is named by no variable", unused.id));
        }
        let ignored = &self.container.ignored_port;
        for object in &self.container.api_objects {
            for key in [
                &object.name,
                &object.namespace,
                &object.kube_config,
                &ignored.address,
                &ignored.switch,
            ] {
                if !vars.iter().any(|v| &v.key == key) {
                    return Err(format!("api_objects: no variable has the key `{key}`"));
                }
            }
        }
        self.start.check()?;
        let checks = &self.container.startup_checks;
        for key in [&checks.max_time, &checks.sleep] {
            if !vars
                .iter()
                .any(|v| &v.key == key && v.ty == VarType::Integer)
            {
                return Err(format!(
                    "startup_checks: no integer variable has the key `{key}`"
                ));
            }
        }
        let mut settings = Vec::with_capacity(self.setting.len());
        for raw in self.setting {
            settings.push(Setting {
                default: read_default(&raw.key, raw.default, raw.default_state.as_deref())?,
                key: raw.key,
                ty: raw.ty,
                min: raw.min,
                meaning: raw.meaning,
            });
        }
        Ok(super::Model {
            settings,
            backends: self.backends,
            container: self.container,
            image: self.image,
            start: self.start,
            editions: self.edition,
            groups: self.group,
            vars,
        })
    }
}

/// The checks that look at several variables: groups exist, no variable twice in one edition,
/// legacy names are not current ones, the backend rule names real keys.
fn check_across(model: &super::Model) -> Result<(), String> {
    let vars = &model.vars;
    for var in vars {
        if !model.groups.iter().any(|g| g.id == var.group) {
            return Err(format!("{}: unknown group `{}`", var.env, var.group));
        }
    }
    for (i, var) in vars.iter().enumerate() {
        for other in &vars[..i] {
            let shared = var.editions.iter().any(|e| other.editions.contains(e));
            if shared && (other.env == var.env || other.key == var.key) {
                return Err(format!("{} is defined twice for one edition", var.env));
            }
        }
    }
    for var in vars {
        for old in &var.legacy {
            if vars.iter().any(|v| &v.env == old) {
                return Err(format!(
                    "{}: legacy name {old} is a current variable",
                    var.env
                ));
            }
        }
        if var.falls_back && var.ty != VarType::Integer {
            return Err(format!("{}: only an integer can fall back", var.env));
        }
        if var.needed_at_start && var.ty != VarType::File {
            return Err(format!("{}: only a file can be needed at start", var.env));
        }
        // The types whose values are text the image passes on: the string forms and the plugin
        // list (each name); the others are read into numbers, words or tables first.
        let text = !matches!(
            var.ty,
            VarType::Enum
                | VarType::Bool
                | VarType::Port
                | VarType::Integer
                | VarType::HybridMapping
                | VarType::Secret
        );
        if !var.consumers.is_empty() && !text {
            return Err(format!(
                "{}: only a text value can have consumers, not a {}",
                var.env,
                var.ty.name()
            ));
        }
    }
    check_image_facts(model)?;
    for key in [&model.backends.selector, &model.backends.mapping] {
        if !vars.iter().any(|v| &v.key == key) {
            return Err(format!("backends: no variable has the key `{key}`"));
        }
    }
    Ok(())
}

/// The image facts that name variables ([`check_across`]): each misfit default's keys, and each
/// variable the image reads beyond the spec (its rule, what it replaces, not the spec's own).
fn check_image_facts(model: &super::Model) -> Result<(), String> {
    let vars = &model.vars;
    for misfit in &model.container.misfit_defaults {
        for key in [&misfit.key, &misfit.when] {
            if !vars.iter().any(|v| &v.key == key) {
                return Err(format!("misfit_defaults: no variable has the key `{key}`"));
            }
        }
    }
    for read in &model.image.reads {
        let rule = read.not_empty || read.not_blank || !read.works.is_empty();
        if rule == read.why.trim().is_empty() {
            return Err(format!(
                "image reads {}: `why` goes with `works`, `not_empty` or `not_blank`",
                read.env
            ));
        }
        if let Some(key) = &read.replaces
            && !vars.iter().any(|v| &v.key == key)
        {
            return Err(format!(
                "image reads {}: it replaces no key `{key}`",
                read.env
            ));
        }
        if vars
            .iter()
            .any(|v| v.env == read.env || v.legacy.contains(&read.env))
        {
            return Err(format!("image reads {}: a variable of the spec", read.env));
        }
    }
    Ok(())
}

impl RawVar {
    /// The variable, its `consumers` ids read as the rows of `consumers`.
    fn into_var(self, consumers: &[Arc<Consumer>]) -> Result<Var, String> {
        let env = self.env;
        let consumers = self
            .consumers
            .iter()
            .map(|id| {
                consumers
                    .iter()
                    .find(|c| &c.id == id)
                    .cloned()
                    .ok_or(format!("{env}: no [[consumer]] has the id `{id}`"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        let default = read_default(&env, self.default, self.default_state.as_deref())?;
        let allowed_not_shown = match self.allowed_state.as_deref() {
            None => false,
            Some("not-shown") => true,
            Some(other) => return Err(format!("{env}: unknown allowed_state `{other}`")),
        };
        if self.ty == VarType::Enum {
            let allowed = self
                .allowed
                .as_ref()
                .ok_or(format!("{env}: an enum needs `allowed`"))?;
            if let DefaultValue::Value(v) = &default
                && !allowed.contains(v)
            {
                return Err(format!("{env}: default `{v}` is not an allowed value"));
            }
        }
        if self.ty == VarType::Integer && (self.unit.is_none() || self.min.is_none()) {
            return Err(format!("{env}: an integer needs `unit` and `min`"));
        }
        if self.ty == VarType::File && self.file.is_none() {
            return Err(format!("{env}: a file path needs `file` (its kind)"));
        }
        if self.ty == VarType::HybridMapping
            && (self.mapping_keys.is_empty() || self.allowed.is_none())
        {
            return Err(format!(
                "{env}: a hybrid mapping needs `mapping_keys` and `allowed`"
            ));
        }
        if self.editions.is_empty() {
            return Err(format!("{env}: no edition"));
        }
        Ok(Var {
            env,
            key: self.key,
            group: self.group,
            editions: self.editions,
            ty: self.ty,
            default,
            allowed: self.allowed,
            allowed_not_shown,
            unit: self.unit,
            min: self.min,
            file: self.file,
            secret: self.secret,
            selector: self.selector,
            restart: self.restart,
            required: self.required,
            not_above: self.not_above,
            aliases: self.aliases,
            mapping_keys: self.mapping_keys,
            mount_path: self.mount_path,
            meaning: self.meaning,
            note: self.note,
            legacy: self.legacy,
            falls_back: self.falls_back,
            needed_at_start: self.needed_at_start,
            consumers,
            address: self.address,
            reached_from_outside: self.reached_from_outside,
            reached_by_container: self.reached_by_container,
        })
    }
}
