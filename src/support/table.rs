//! The one table pattern: an enum whose every variant is one row of a table of its facts (its
//! name on the command line, its help, its file, ...). [`table!`] declares the enum and the
//! table together from the rows, so a variant without its row, or a row out of the enum's
//! order, cannot be written; [`value_enum!`] makes clap's values and help for a flag from two
//! fields of the rows. Diagnostic codes (`diag::code`), render targets (`render::targets`) and
//! import formats (`import::formats`) are tables of this kind (ripgrep's flag table is the
//! model).

/// Declares `enum NAME` with one variant per row, the rows as `static ROWS: &[ROW]` in the
/// variants' order, and on the enum `VARIANTS` (every variant, in order) and `row()` (its row,
/// found by its place: no search, no "every variant has a row" to check at run time).
macro_rules! table {
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident in $rows:ident: [$row:ty] {
            $( $(#[doc = $doc:literal])* $variant:ident => $def:expr ),+ $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        $vis enum $name {
            $( $(#[doc = $doc])* $variant, )+
        }

        /// Every row, in the order of the variants. A `static`, not a `const`: a `const` is
        /// copied into each codegen unit that reads it, and each copy's pointers (three per
        /// diagnostic code, ten copies) are relocated by the loader at every start.
        $vis static $rows: &[$row] = &[ $( $def, )+ ];

        impl $name {
            /// Every variant, in the table's order.
            pub const VARIANTS: &'static [$name] = &[ $( $name::$variant, )+ ];

            /// Its row.
            pub const fn row(self) -> &'static $row {
                &$rows[self as usize]
            }
        }
    };
}

/// Implements `clap::ValueEnum` for a [`table!`] enum: its values are the rows' `$value`
/// field and their help the rows' `$help` field, so the flag's values, `--help`, completions
/// and man page come from the table.
macro_rules! value_enum {
    ($name:ty, $value:ident, $help:ident) => {
        impl clap::ValueEnum for $name {
            fn value_variants<'a>() -> &'a [Self] {
                Self::VARIANTS
            }

            fn to_possible_value(&self) -> Option<clap::builder::PossibleValue> {
                let row = self.row();
                Some(clap::builder::PossibleValue::new(row.$value).help(row.$help))
            }
        }
    };
}

pub(crate) use {table, value_enum};
