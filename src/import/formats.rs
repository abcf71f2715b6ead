//! Every format `import` and `lint` read is one row of [`FORMATS`]: its `--from` value, its
//! help line and the name messages give it. The CLI's `--from` values, help, completions and man
//! page read this table; a new format is a row here, plus its own reader file.

use super::Format;

/// One format's row.
pub struct FormatDef {
    pub format: Format,
    /// Its `--from` value.
    pub flag: &'static str,
    /// Its help line.
    pub help: &'static str,
    /// Its name in messages and in an imported profile's header.
    pub name: &'static str,
}

/// Every format, in the order of `--help`.
pub const FORMATS: [FormatDef; 3] = [
    FormatDef {
        format: Format::Dotenv,
        flag: "dotenv",
        help: "a .env file",
        name: ".env",
    },
    FormatDef {
        format: Format::Compose,
        flag: "compose",
        help: "a compose file (the service's environment and env_file entries)",
        name: "compose",
    },
    FormatDef {
        format: Format::Kubernetes,
        flag: "k8s",
        help: "Kubernetes ConfigMap / Deployment / Pod manifests",
        name: "Kubernetes",
    },
];

/// The row of `format`.
pub fn row(format: Format) -> &'static FormatDef {
    FORMATS
        .iter()
        .find(|row| row.format == format)
        .expect("every format has its row (checked by a test)")
}

impl clap::ValueEnum for Format {
    fn value_variants<'a>() -> &'a [Self] {
        const ALL: [Format; FORMATS.len()] = {
            let mut out = [Format::Dotenv; FORMATS.len()];
            let mut i = 0;
            while i < FORMATS.len() {
                out[i] = FORMATS[i].format;
                i += 1;
            }
            out
        };
        &ALL
    }

    fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
        let row = row(*self);
        Some(clap::builder::PossibleValue::new(row.flag).help(row.help))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_table_has_one_row_per_format() {
        use clap::ValueEnum;
        for format in Format::value_variants() {
            let rows = FORMATS.iter().filter(|r| r.format == *format).count();
            assert_eq!(rows, 1, "{format:?}");
        }
        assert_eq!(Format::from_str("k8s", false).unwrap(), Format::Kubernetes);
    }
}
