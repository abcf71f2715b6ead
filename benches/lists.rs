//! The checks over lists grow with the list, not with its square: a profile with N plugins (each
//! listed in `admin_ui.plugins` and given an archive in `[deploy.plugins]`, all in one ConfigMap)
//! checked (duplicate names, mount paths, generated objects' keys) and planned for Kubernetes.
//! 5,000 against 50,000: a linear check takes about 10 times as long, a quadratic one 100.
//!
//! Run by hand: `cargo bench --bench lists` (not part of `cargo test`); results in
//! `benches/RESULTS.md`.

use divan::{Bencher, black_box};
use svcgen::diag::source::Sources;
use svcgen::pipeline::check_text;
use svcgen::render::k8s_plan::plan_for;
use svcgen::render::{EnvOptions, environment};

fn main() {
    divan::main();
}

/// The list lengths measured.
const LENGTHS: [usize; 2] = [5_000, 50_000];

/// An edition A profile with `n` plugins.
fn profile(n: usize) -> String {
    let names: Vec<String> = (0..n).map(|i| format!("\"p{i}\"")).collect();
    let mut text = format!(
        "edition = \"A\"\n\n[config]\nadapter = \"consul\"\nconsul = {{ host = \"consul\", port = 8500 }}\n\n\
         [secret]\nadapter = \"vault\"\nvault = {{ addr = \"http://localhost:8200\" }}\n\n\
         [persistence]\ntype = \"ldap\"\nldap = {{ url = \"ldap.internal:1636\", use_ssl = true }}\n\n\
         [token_server]\nbase_hostname = \"auth.example.org\"\nclient_id = \"1001.abc\"\n\n\
         [admin_ui]\nauth_method = \"casa\"\nplugins = [{}]\n\n\
         [scan]\nauth_url = \"https://account.example.org\"\napi_url = \"https://scan.example.org\"\n\n\
         [deploy.plugins]\n",
        names.join(", ")
    );
    for i in 0..n {
        text.push_str(&format!(
            "p{i} = {{ configmap = \"admin-ui-plugins\", key = \"p{i}.zip\" }}\n"
        ));
    }
    text
}

/// The profile checked (every rule, the duplicate checks among them) and its Kubernetes objects
/// planned (the objects' keys grouped).
#[divan::bench(args = LENGTHS, sample_count = 3, sample_size = 1)]
fn plugins_checked_and_planned(bencher: Bencher, n: usize) {
    let text = profile(n);
    bencher.bench(|| {
        let mut sources = Sources::new();
        let checked = check_text("p.toml", black_box(&text), None, &mut sources);
        let resolved = checked.resolved.expect("the benchmark profile is valid");
        let env = environment(&resolved, EnvOptions::default()).expect("no secrets are read");
        let planned = plan_for(&resolved, &env, None, EnvOptions::default(), None);
        black_box(planned.to_create.len())
    });
}
