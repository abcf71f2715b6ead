//! Typed values of variables and their text in the environment.

use std::path::PathBuf;

/// A value the deploying environment fills in (`{ deploy_env = "X" }`; read and checked by
/// `resolve::deferred`).
#[derive(Debug, Clone, PartialEq)]
pub struct Deferred {
    /// The deploying environment's variable.
    pub var: String,
    /// Used when it is unset or empty (checked by the variable's type).
    pub default: Option<Box<Typed>>,
}

impl Deferred {
    /// The default as the container would read it.
    pub fn default_text(&self) -> Option<String> {
        self.default.as_ref().and_then(|d| d.env_text())
    }
}

/// Where a secret's value comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SecretSource {
    /// Written in the profile in clear text (warned about).
    Literal(String),
    /// Read from this environment variable of the process running svcgen.
    Env(String),
    /// Read from a file: the path as written in the profile (shown to people, so outputs do not
    /// depend on where the profile was checked out) and the path read (relative paths are
    /// relative to the folder of the profile that wrote them).
    File { written: String, path: PathBuf },
}

impl SecretSource {
    /// How the value is supplied, for comments in outputs ("the environment variable X").
    pub fn describe(&self) -> String {
        match self {
            SecretSource::Literal(_) => "the literal in the profile".to_string(),
            SecretSource::Env(name) => format!("the environment variable {name}"),
            SecretSource::File { written, .. } => {
                format!("the file {}", crate::support::escape::one_line(written))
            }
        }
    }

    /// Reads the secret now. Only called when an output must contain the value.
    pub fn read(&self) -> Result<String, String> {
        match self {
            SecretSource::Literal(v) => Ok(v.clone()),
            SecretSource::Env(name) => std::env::var(name)
                .map_err(|_| format!("the environment variable {name} is not set (or not UTF-8)")),
            SecretSource::File { path, .. } => {
                // Only a regular file: a FIFO would block, /dev/zero would never end.
                // (Recorded as an input by the command that asked for the value.)
                let bytes = crate::profile::read_regular(path).map_err(|e| e.0)?;
                let text = String::from_utf8(bytes)
                    .map_err(|_| format!("{} is not UTF-8 text", path.display()))?;
                Ok(text.trim_end_matches(['\n', '\r']).to_string())
            }
        }
    }
}

/// A variable's value after type checks.
#[derive(Debug, Clone, PartialEq)]
pub enum Typed {
    Text(String),
    Bool(bool),
    Int(i64),
    List(Vec<String>),
    /// The hybrid mapping: (category, backend) in the spec's key order.
    Mapping(Vec<(String, String)>),
    Secret(SecretSource),
    /// Filled in at deploy time from a variable of the deploying environment (see `deferred`).
    Deferred(Deferred),
}

impl Typed {
    /// The string the container reads; `None` for a secret or a deploy-time value (their values
    /// are not known here).
    pub fn env_text(&self) -> Option<String> {
        match self {
            Typed::Text(s) => Some(s.clone()),
            Typed::Bool(b) => Some(b.to_string()),
            Typed::Int(n) => Some(n.to_string()),
            Typed::List(items) => Some(items.join(",")),
            Typed::Mapping(pairs) => {
                let object: serde_json::Map<String, serde_json::Value> = pairs
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str())))
                    .collect();
                Some(serde_json::Value::Object(object).to_string())
            }
            Typed::Secret(_) | Typed::Deferred(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn env_text_of_each_type() {
        assert_eq!(Typed::Bool(true).env_text().unwrap(), "true");
        assert_eq!(Typed::Int(8500).env_text().unwrap(), "8500");
        assert_eq!(
            Typed::List(vec!["a".into(), "b".into()])
                .env_text()
                .unwrap(),
            "a,b"
        );
        let mapping = Typed::Mapping(vec![
            ("default".into(), "sql".into()),
            ("user".into(), "couchbase".into()),
        ]);
        assert_eq!(
            mapping.env_text().unwrap(),
            r#"{"default":"sql","user":"couchbase"}"#
        );
        assert_eq!(
            Typed::Secret(SecretSource::Env("X".into())).env_text(),
            None
        );
    }
}
