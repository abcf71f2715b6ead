//! Real servers and verified fakes for the preflight tests: each starts on 127.0.0.1 on a free
//! port in a temporary folder and is stopped when dropped. A missing server program skips the
//! test visibly (a failure on CI: `skip`).

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A running server, stopped (killed and reaped) when dropped.
pub struct Server {
    child: Option<Child>,
    pub port: u16,
    /// Its folder (data, sockets, logs).
    pub dir: tempfile::TempDir,
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Some(child) = self.child.as_mut() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// A free port on 127.0.0.1 (bound, then released for the server to take).
pub fn free_port() -> u16 {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("an address").port()
}

/// A port on 127.0.0.1 that accepts connections and never answers (a black hole), kept open
/// while the returned listener lives; its accepted sockets are kept open too.
pub fn black_hole() -> (u16, std::thread::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free port");
    let port = listener.local_addr().expect("an address").port();
    let handle = std::thread::spawn(move || {
        let mut held = Vec::new();
        // Ends when the test process ends; holds every connection without a byte.
        for stream in listener.incoming().take(16) {
            held.push(stream);
        }
        std::thread::sleep(Duration::from_secs(120));
    });
    (port, handle)
}

/// A port nothing listens on (connections are refused).
pub fn refused_port() -> u16 {
    free_port()
}

/// The fakes' folder.
pub fn fakes() -> PathBuf {
    super::repo().join("tests/support/fakes")
}

thread_local! {
    /// Variables the next fake started on this thread gets (see [`with_env`]).
    static FAKE_ENV: std::cell::RefCell<Vec<(String, PathBuf)>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs `start` with `vars` given to the fakes it starts (not to this process).
pub fn with_env<T>(vars: &[(&str, &Path)], start: impl FnOnce() -> T) -> T {
    FAKE_ENV.with(|env| {
        *env.borrow_mut() = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_path_buf()))
            .collect()
    });
    let out = start();
    FAKE_ENV.with(|env| env.borrow_mut().clear());
    out
}

/// Starts a fake (`consul` or `vault`, see fake_services.py) with `args`.
pub fn fake(service: &str, args: &[&str]) -> Option<Server> {
    let python = python3()?;
    let mut command = Command::new(python);
    command
        .arg(fakes().join("fake_services.py"))
        .arg(service)
        .args(args)
        .envs(FAKE_ENV.with(|env| env.borrow().clone()));
    Some(announcing(command))
}

/// Starts a server that prints the port it listens on as its first line.
fn announcing(mut command: Command) -> Server {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the server starts");
    let mut line = String::new();
    let stdout = child.stdout.take().expect("its stdout");
    BufReader::new(stdout)
        .read_line(&mut line)
        .expect("its port");
    let port = line.trim().parse().expect("a port number");
    Server {
        child: Some(child),
        port,
        dir,
    }
}

/// The system's python3 (the fakes need only its standard library).
fn python3() -> Option<PathBuf> {
    let found = ["/usr/bin/python3", "/usr/local/bin/python3"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.is_file());
    if found.is_none() {
        super::skip(
            "python3",
            "install Python 3 (Debian: apt-get install python3)",
        );
    }
    found
}

/// The venv's python with the image's own clients (python-consul, hvac, kubernetes, requests),
/// for the oracle.
pub fn oracle_python() -> Option<PathBuf> {
    let venv = std::env::var_os("SVCGEN_VENV")
        .map(PathBuf::from)
        .unwrap_or_else(|| super::repo().join(".venv"));
    let python = venv.join("bin/python");
    let has_clients = python.is_file()
        && Command::new(&python)
            .args(["-c", "import consul, hvac, kubernetes, requests"])
            .status()
            .is_ok_and(|s| s.success());
    if !has_clients {
        super::skip(
            "python-consul, hvac, kubernetes and requests",
            &super::how_to_get("python-consul"),
        );
        return None;
    }
    Some(python)
}

/// Runs a command as the user `postgres` when this process is root (PostgreSQL refuses root).
fn as_postgres(program: &Path) -> Command {
    let root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0"));
    if root {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

/// The folder of PostgreSQL's programs.
fn postgres_bin() -> Option<PathBuf> {
    let dir = PathBuf::from("/usr/lib/postgresql/15/bin");
    if dir.join("postgres").is_file() {
        return Some(dir);
    }
    super::skip(
        "PostgreSQL 15",
        "install it (Debian: apt-get install postgresql-15)",
    );
    None
}

/// Waits until `port` accepts a connection (at most 20 s).
fn wait_for_port(port: u16) {
    let started = Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the server did not listen on {port}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A PostgreSQL server with the database `svc` of the user `svc` (password `password`), and
/// `setup` SQL run in it as that user.
pub fn postgres(setup: &str) -> Option<Server> {
    let bin = postgres_bin()?;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let data = dir.path().join("data");
    let pwfile = dir.path().join("pw");
    std::fs::write(&pwfile, "postgres-superuser\n").unwrap();
    let _ = Command::new("chown")
        .args(["-R", "postgres:postgres"])
        .arg(dir.path())
        .status();
    let status = as_postgres(&bin.join("initdb"))
        .args(["-U", "postgres", "--auth=scram-sha-256", "-D"])
        .arg(&data)
        .arg(format!("--pwfile={}", pwfile.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("initdb runs");
    assert!(status.success(), "initdb failed");
    let port = free_port();
    let child = as_postgres(&bin.join("postgres"))
        .arg("-D")
        .arg(&data)
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "-k"])
        .arg(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("postgres starts");
    let server = Server {
        child: Some(child),
        port,
        dir,
    };
    wait_for_port(port);
    let psql = |user: &str, db: &str, password: &str, sql: &str| {
        let out = Command::new(bin.join("psql"))
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &port.to_string(),
                "-U",
                user,
                "-d",
                db,
            ])
            .args(["-v", "ON_ERROR_STOP=1", "-q", "-c", sql])
            .env("PGPASSWORD", password)
            .output()
            .expect("psql runs");
        assert!(
            out.status.success(),
            "psql: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    let started = Instant::now();
    loop {
        let ready = Command::new(bin.join("pg_isready"))
            .args(["-h", "127.0.0.1", "-p", &port.to_string()])
            .stdout(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if ready || started.elapsed() > Duration::from_secs(20) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let superuser = "postgres-superuser";
    psql(
        "postgres",
        "postgres",
        superuser,
        "CREATE ROLE svc LOGIN PASSWORD 'password'",
    );
    psql(
        "postgres",
        "postgres",
        superuser,
        "CREATE DATABASE svc OWNER svc",
    );
    if !setup.is_empty() {
        psql("svc", "svc", "password", setup);
    }
    Some(server)
}

/// Whether this process runs as root.
fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// A MariaDB server with the database `svc` of the user `svc` (password `password`), and
/// `setup` SQL run in it.
pub fn mariadb(setup: &str) -> Option<Server> {
    let (Some(install), Some(server), Some(client)) = (
        which("mariadb-install-db"),
        which("mariadbd")
            .or_else(|| Some(PathBuf::from("/usr/sbin/mariadbd")).filter(|p| p.is_file())),
        which("mariadb"),
    ) else {
        super::skip(
            "MariaDB",
            "install it (Debian: apt-get install --no-install-recommends mariadb-server)",
        );
        return None;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let data = dir.path().join("data");
    let user = if is_root() { "mysql" } else { "" };
    if is_root() {
        let _ = Command::new("chown")
            .args(["-R", "mysql:mysql"])
            .arg(dir.path())
            .status();
    }
    let mut command = Command::new(install);
    command
        .arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .args(["--auth-root-authentication-method=normal", "--skip-test-db"]);
    if !user.is_empty() {
        command.arg(format!("--user={user}"));
    }
    let status = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("mariadb-install-db runs");
    assert!(status.success(), "mariadb-install-db failed");
    let port = free_port();
    let socket = dir.path().join("mysqld.sock");
    let mut command = Command::new(server);
    command
        .arg("--no-defaults")
        .arg(format!("--datadir={}", data.display()))
        .arg(format!("--socket={}", socket.display()))
        .arg(format!("--pid-file={}", dir.path().join("pid").display()))
        .args(["--bind-address=127.0.0.1", "--skip-name-resolve"])
        .arg(format!("--port={port}"));
    if !user.is_empty() {
        command.arg(format!("--user={user}"));
    }
    let child = command
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("mariadbd starts");
    let server = Server {
        child: Some(child),
        port,
        dir,
    };
    wait_for_port(port);
    let sql = format!(
        "CREATE DATABASE svc; CREATE USER 'svc'@'%' IDENTIFIED BY 'password'; \
         GRANT ALL ON svc.* TO 'svc'@'%'; USE svc; {setup}"
    );
    let out = Command::new(client)
        .arg("--no-defaults")
        .arg(format!("--socket={}", socket.display()))
        .args(["-u", "root", "-e", &sql])
        .output()
        .expect("mariadb runs");
    assert!(
        out.status.success(),
        "mariadb: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(server)
}

/// A program on PATH (or in /usr/sbin, where Debian puts servers).
pub fn which(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/usr/bin")])
        .map(|dir| dir.join(name))
        .find(|p| p.is_file())
}

/// An OpenLDAP server on `address`:`port` (the image ignores the URL's port, so the tests use
/// a loopback address of their own with the image's port), with the suffix `o=jans`, the
/// manager `cn=directory manager,o=jans` (password `secret`) and `ldif` added; the object class
/// `jansAppConf` is defined for it.
pub fn slapd(address: &str, port: u16, ldif: &str) -> Option<Server> {
    let (Some(slapd), Some(add)) = (which("slapd"), which("ldapadd")) else {
        super::skip(
            "OpenLDAP",
            "install it (Debian: apt-get install --no-install-recommends slapd ldap-utils)",
        );
        return None;
    };
    let dir = tempfile::tempdir().expect("a temporary folder");
    let data = dir.path().join("data");
    std::fs::create_dir(&data).unwrap();
    let schema = dir.path().join("jans.schema");
    std::fs::write(
        &schema,
        "objectclass ( 1.3.6.1.4.1.48710.1.4.100 NAME 'jansAppConf' SUP top STRUCTURAL MUST ou )\n",
    )
    .unwrap();
    let conf = dir.path().join("slapd.conf");
    std::fs::write(
        &conf,
        format!(
            "include /etc/ldap/schema/core.schema\ninclude {}\npidfile {}/slapd.pid\n\
             modulepath /usr/lib/ldap\nmoduleload back_mdb\ndatabase mdb\nsuffix \"o=jans\"\n\
             rootdn \"cn=directory manager,o=jans\"\nrootpw secret\ndirectory {}\n",
            schema.display(),
            dir.path().display(),
            data.display()
        ),
    )
    .unwrap();
    let url = format!("ldap://{address}:{port}/");
    let child = Command::new(slapd)
        .args(["-d", "0", "-f"])
        .arg(&conf)
        .args(["-h", &url])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("slapd starts");
    let server = Server {
        child: Some(child),
        port,
        dir,
    };
    let started = Instant::now();
    while std::net::TcpStream::connect((address, port)).is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "slapd did not listen"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let entries = format!("dn: o=jans\nobjectClass: organization\no: jans\n\n{ldif}");
    let mut child = Command::new(add)
        .args([
            "-x",
            "-H",
            &url,
            "-D",
            "cn=directory manager,o=jans",
            "-w",
            "secret",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ldapadd runs");
    use std::io::Write;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(entries.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "ldapadd: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(server)
}

/// An OIDC provider (npm oauth2-mock-server, tests/support/oidc) on a free port; its issuer is
/// its own address, or `issuer` when given.
pub fn oidc(issuer: Option<&str>) -> Option<Server> {
    let folder = super::repo().join("tests/support/oidc");
    let node = which("node");
    let (Some(node), true) = (
        node,
        folder.join("node_modules/oauth2-mock-server").is_dir(),
    ) else {
        super::skip(
            "oauth2-mock-server",
            "install Node and run `npm ci --prefix tests/support/oidc` (scripts/test.sh does)",
        );
        return None;
    };
    let mut command = Command::new(node);
    command
        .arg(folder.join("serve.js"))
        .args(issuer)
        .current_dir(&folder);
    Some(announcing(command))
}
