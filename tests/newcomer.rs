//! A newcomer's second hour (issue 22): their own files and command-line mistakes, one scenario
//! per class of the issue, each run as a user meets it.

mod support;

use support::scenario::Test;

/// Class 3: the bundled overlay with its `#:svcgen overlay-of` line validates with its base on
/// the command line, as it does in the editor (it used to fail with "add edition").
#[test]
fn class3_cli_honours_the_overlay_directive() {
    Test::in_repo()
        .args(["validate", "examples/layers/eu.toml"])
        .stderr_lacks("E0200")
        .stderr_has("eu.toml: valid, edition B")
        .run();
    // Rendered with its base too: the overlay's consul host over prod's values.
    Test::in_repo()
        .args(["render", "examples/layers/eu.toml", "-t", "dotenv"])
        .stdout_has("CN_CONFIG_CONSUL_HOST=")
        .run();
    // A directive naming a missing base says which line to fix.
    Test::new()
        .file("eu.toml", "#:svcgen overlay-of = \"gone.toml\"\n[wait]\nmax_time = 60\n")
        .args(["validate", "eu.toml"])
        .code(2)
        .stderr_has("the base named by `#:svcgen overlay-of` in eu.toml")
        .run();
}
