//! What a preflight dials and reads: the environment the container would see, and its files.
//! From a profile, the environment is the one `render` writes (secrets read, as
//! `--include-secrets` reads them) and each file the container opens is the host file of its
//! `[deploy.files]` source, resolved as `render` resolves it (relative to the profile that writes
//! it). From a container (`--from-env`), both are the process's own.

use super::deadline::Doing;
use crate::model::{Edition, Model};
use crate::resolve::Resolved;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Reads one file whole through the one bounded reader; `Err` says why it cannot be read.
pub type FileReader = Box<dyn Fn(&Path) -> Result<Vec<u8>, String> + Send + Sync>;

/// A [`FileReader`] the clones of one setting share.
type SharedReader = std::sync::Arc<dyn Fn(&Path) -> Result<Vec<u8>, String> + Send + Sync>;

/// The container's environment and files, as one preflight sees them. A clone shares the
/// reader and the secrets seen: each step runs on a thread of its own with one (its files are
/// read inside the step's bound, see `deadline::whole_step`).
#[derive(Clone)]
pub struct Setting {
    pub edition: Edition,
    env: BTreeMap<String, String>,
    /// From a profile: each container path with a host source, and its host path. `None`:
    /// the container's own files (`--from-env`).
    files: Option<HashMap<String, PathBuf>>,
    reader: SharedReader,
    /// From a container: the variables its environment lacks, whose value here is the spec's
    /// default (a profile's rendered environment gives the container every one of them).
    filled: std::collections::BTreeSet<String>,
    /// Every secret value read so far (files, secret variables, tokens): no output shows them.
    secrets: std::sync::Arc<Mutex<Vec<String>>>,
    /// The file being read now, for the step this clone runs ([`Setting::for_step`]).
    doing: Doing,
}

impl Setting {
    /// The environment `render` writes for a checked profile (secret values read; `Err` when
    /// one cannot be), with its host files.
    pub fn from_profile(resolved: &Resolved, reader: FileReader) -> Result<Setting, String> {
        let files = (resolved.deploy.files.iter())
            .filter_map(|f| Some((f.container_path.clone(), f.host_path.clone()?)))
            .collect();
        let mut setting = Setting::resolved(resolved, reader, Some(files))?;
        // The rendered environment gives the container every default.
        setting.filled.clear();
        Ok(setting)
    }

    /// A container's own environment, resolved as `import` resolves it
    /// ([`crate::import::resolve_environment`]), with its files read where the container opens
    /// them (`--from-env`). `kept`: the container's variables as it has them, for each name the
    /// resolved environment does not hold (it wins where it does).
    pub fn from_container(
        resolved: &Resolved,
        reader: FileReader,
        kept: Vec<(String, String)>,
    ) -> Result<Setting, String> {
        let mut setting = Setting::resolved(resolved, reader, None)?;
        for (name, value) in kept {
            setting.env.entry(name).or_insert(value);
        }
        Ok(setting)
    }

    /// The environment `render` writes for `resolved`, secret values read, and where its files are.
    fn resolved(
        resolved: &Resolved,
        reader: FileReader,
        files: Option<HashMap<String, PathBuf>>,
    ) -> Result<Setting, String> {
        use crate::render::{EnvOptions, environment};
        let options = EnvOptions {
            include_secrets: true,
            ..EnvOptions::default()
        };
        let vars = environment(resolved, options).map_err(|diags| {
            let words: Vec<String> = diags.items.iter().map(|d| d.message.clone()).collect();
            words.join("; ")
        })?;
        let mut secrets = Vec::new();
        let mut env = BTreeMap::new();
        let mut filled = std::collections::BTreeSet::new();
        for var in vars {
            let Some(value) = var.value else { continue };
            if var.origin.is_none() {
                filled.insert(var.name.clone());
            }
            if var.secret {
                secrets.push(value.clone());
            }
            env.insert(var.name, value);
        }
        Ok(Setting {
            edition: resolved.edition,
            env,
            files,
            reader: std::sync::Arc::from(reader),
            filled,
            secrets: std::sync::Arc::new(Mutex::new(secrets)),
            doing: Doing::default(),
        })
    }

    /// The value the image reads for `name`: the environment's, else the model's default (the
    /// spec's, or the image's own for a variable outside the spec).
    pub fn get(&self, name: &str) -> Option<String> {
        if let Some(value) = self.env.get(name) {
            return Some(value.clone());
        }
        self.default_of(name)
    }

    /// The model's default of `name` in this edition: the spec's, or the image's own for a
    /// variable outside the spec.
    pub fn default_of(&self, name: &str) -> Option<String> {
        let model = Model::get();
        if let Some(var) = model
            .entries_by_env(name)
            .find(|v| v.editions.contains(&self.edition))
        {
            return var.default.value().map(str::to_string);
        }
        Some(model.image_read(name, self.edition)?.default.clone())
    }

    /// Whether the environment holds `name` (even empty): the image tells unset from empty for
    /// some variables (`"X" in os.environ`).
    pub fn is_set(&self, name: &str) -> bool {
        self.env.contains_key(name) && !self.filled.contains(name)
    }

    /// `get`, or the empty string.
    pub fn text(&self, name: &str) -> String {
        self.get(name).unwrap_or_default()
    }

    /// A boolean as the image reads it: only its true words are true.
    pub fn flag(&self, name: &str) -> bool {
        let value = self.text(name);
        Model::get().container.true_words.contains(&value)
    }

    /// Reads the file the container opens at `container_path`. A secret file's content (trimmed,
    /// as the image strips it) is kept out of every output from now on.
    pub fn read(&self, container_path: &str, secret: bool) -> Result<Vec<u8>, String> {
        let path = match &self.files {
            Some(files) => files.get(container_path).cloned().ok_or_else(|| {
                format!(
                    "{container_path}: no host source for it in [deploy.files], so svcgen cannot read it"
                )
            })?,
            None => PathBuf::from(container_path),
        };
        let what = match path.to_str() == Some(container_path) {
            true => format!("reading {container_path}"),
            false => format!("reading {container_path} (host file {})", path.display()),
        };
        self.read_noted(&path, what, secret)
    }

    /// Reads a file of the machine svcgen runs on (the kubeconfig a client outside a container
    /// loads, and the files it names) through the one bounded reader; a secret file's content is
    /// kept out of every output from now on.
    pub fn read_local(&self, path: &Path, secret: bool) -> Result<Vec<u8>, String> {
        self.read_noted(path, format!("reading {}", path.display()), secret)
    }

    /// Reads `path` through the one bounded reader, noting `what` as what the step is doing
    /// while it reads; a secret file's content is kept out of every output from now on.
    fn read_noted(&self, path: &Path, what: String, secret: bool) -> Result<Vec<u8>, String> {
        let _reading = self.doing.during(what);
        let bytes = (self.reader)(path)?;
        if secret {
            self.keep_secret(String::from_utf8_lossy(&bytes).trim());
        }
        Ok(bytes)
    }

    /// The file's content when the container would find it, `None` when it would not (the
    /// image skips a missing optional file).
    pub fn read_optional(&self, container_path: &str, secret: bool) -> Option<Vec<u8>> {
        if container_path.is_empty() {
            return None;
        }
        self.read(container_path, secret).ok()
    }

    /// A secret file's text, stripped as the image strips it.
    pub fn read_secret_text(&self, container_path: &str) -> Result<String, String> {
        let bytes = self.read(container_path, true)?;
        Ok(String::from_utf8_lossy(&bytes).trim().to_string())
    }

    /// Keeps `value` out of every output.
    pub fn keep_secret(&self, value: &str) {
        if let Ok(mut secrets) = self.secrets.lock()
            && !value.is_empty()
        {
            secrets.push(value.to_string());
        }
    }

    /// A function that keeps a value out of every output, for a check's own thread.
    pub fn secret_keeper(&self) -> impl Fn(&str) + Send + Sync + 'static + use<> {
        let secrets = std::sync::Arc::clone(&self.secrets);
        move |value: &str| {
            if let Ok(mut kept) = secrets.lock()
                && !value.is_empty()
            {
                kept.push(value.to_string());
            }
        }
    }

    /// A clone for one whole step, with its own note of what it is doing ([`Setting::doing`]).
    pub fn for_step(&self) -> Setting {
        Setting {
            doing: Doing::default(),
            ..self.clone()
        }
    }

    /// What the step of this clone is doing now, for its deadline's reason.
    pub fn doing(&self) -> Doing {
        self.doing.clone()
    }

    /// Every secret value seen.
    pub fn secrets(&self) -> Vec<String> {
        self.secrets.lock().map(|s| s.clone()).unwrap_or_default()
    }
}
