//! "rendering N/M" on a terminal while a large batch renders.

use std::io::{IsTerminal, Write};

/// "rendering N/M" on a terminal for batches of 50 or more, at most ten times a second.
pub struct Progress {
    total: usize,
    done: usize,
    shown: Option<std::time::Instant>,
    enabled: bool,
}

impl Progress {
    pub fn new(total: usize, quiet: bool) -> Progress {
        Progress {
            total,
            done: 0,
            shown: None,
            enabled: std::io::stderr().is_terminal() && total >= 50 && !quiet,
        }
    }

    pub fn step(&mut self) {
        self.done += 1;
        if !self.enabled || self.shown.is_some_and(|t| t.elapsed().as_millis() < 100) {
            return;
        }
        self.shown = Some(std::time::Instant::now());
        let _ = write!(
            std::io::stderr(),
            "\rrendering {}/{}",
            self.done,
            self.total
        );
    }

    pub fn finish(&self) {
        if self.enabled {
            let _ = writeln!(
                std::io::stderr(),
                "\rrendering {}/{}",
                self.total,
                self.total
            );
        }
    }
}
