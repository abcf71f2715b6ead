//! Every format `import` and `lint` read is one row of [`FORMATS`] (the one table pattern,
//! `support::table`): the variant with its `--from` value, its help line and the name messages
//! give it. The CLI's `--from` values, help, completions and man page read this table; a new
//! format is a row here, plus its own reader file.

/// One format's row.
pub struct FormatDef {
    /// Its `--from` value.
    pub flag: &'static str,
    /// Its help line.
    pub help: &'static str,
    /// Its name in messages and in an imported profile's header.
    pub name: &'static str,
}

crate::support::table::table! {
    /// The kind of file read; its `--from` value, help and name are its row in [`FORMATS`],
    /// in the order of `--help`.
    pub enum Format in FORMATS: [FormatDef] {
        /// `NAME=value` lines (docker compose env_file, python-dotenv).
        Dotenv => FormatDef {
            flag: "dotenv",
            help: "a .env file",
            name: ".env",
        },
        /// A compose file: one service's `environment` and `env_file`.
        Compose => FormatDef {
            flag: "compose",
            help: "a compose file (the service's environment and env_file entries)",
            name: "compose",
        },
        /// Kubernetes manifests: a ConfigMap, or a Pod / Deployment (or other workload)
        /// container's `env` and `envFrom`, or a bare `env:` list.
        Kubernetes => FormatDef {
            flag: "k8s",
            help: "Kubernetes ConfigMap / Deployment / Pod manifests",
            name: "Kubernetes",
        },
    }
}

crate::support::table::value_enum!(Format, flag, help);

impl Format {
    /// Its name in messages.
    pub fn name(self) -> &'static str {
        self.row().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_flags_and_names_are_distinct_and_parse_back() {
        use clap::ValueEnum;
        let flags: std::collections::BTreeSet<_> = FORMATS.iter().map(|r| r.flag).collect();
        let names: std::collections::BTreeSet<_> = FORMATS.iter().map(|r| r.name).collect();
        assert_eq!((flags.len(), names.len()), (FORMATS.len(), FORMATS.len()));
        for format in Format::value_variants() {
            assert_eq!(Format::from_str(format.row().flag, false).unwrap(), *format);
        }
        assert_eq!(Format::from_str("k8s", false).unwrap(), Format::Kubernetes);
    }
}
