//! Network faults across nodes: the link between the two nodes of
//! `tests/common/netns.rs` goes down under a running job
//! (`tests/netns/netfault.c`: checked puts, gets, fetch-adds and barriers
//! between the nodes, 2 nodes x 2 PEs).
//!
//! - Down for 5 s, shorter than `SHMEM_NETWORK_TIMEOUT`: the job stalls and
//!   goes on, every value checked, and ends with status 0.
//! - Down for 30 s with `SHMEM_NETWORK_TIMEOUT=10`: each node's network watch
//!   ends its PEs about 10 s after the link went down, with a line naming the
//!   node it lost; `mpirun` itself ends (non-zero) only once the link is back,
//!   since it waits to hear from the other node's daemon.
//!
//! Root only, like `tests/netns.rs` (skipped with a line saying why, or a
//! failure under `RSHMEM_REQUIRE_MPI=1`).

mod common;

use common::netns::{HOSTS, Nodes, OSHCC, OSHRUN, can_run, compile, dir, rshmem_env};
use std::io::{BufRead, BufReader};
use std::process::Child;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// `SHMEM_NETWORK_TIMEOUT` of the test that exceeds it.
const BOUND: Duration = Duration::from_secs(10);
/// How late after the bound the PEs may end on this loaded 2-core machine
/// (the kernel checks every second, then `SIGTERM` and up to 2 s of grace).
const MARGIN: Duration = Duration::from_secs(5);

/// A job in the namespaces, its output lines timestamped as they come.
struct Job {
    child: Child,
    rx: mpsc::Receiver<(Instant, bool, String)>,
    /// Every line so far: when, whether on stderr, the text.
    lines: Vec<(Instant, bool, String)>,
}

impl Job {
    fn start(nodes: &Nodes, program: &str, seconds: &str, env: &[(&str, &str)]) -> Job {
        let mut child = nodes
            .command(OSHRUN, &["--host", HOSTS, "-np", "4", program, seconds], env)
            .spawn()
            .expect("run ip netns exec");
        let (tx, rx) = mpsc::channel();
        let out = child.stdout.take().expect("piped stdout");
        let err = child.stderr.take().expect("piped stderr");
        for (stream, is_err) in [
            (Box::new(out) as Box<dyn std::io::Read + Send>, false),
            (Box::new(err), true),
        ] {
            let tx = tx.clone();
            std::thread::spawn(move || {
                for line in BufReader::new(stream).lines().map_while(Result::ok) {
                    let _ = tx.send((Instant::now(), is_err, line));
                }
            });
        }
        Job {
            child,
            rx,
            lines: Vec::new(),
        }
    }

    fn drain(&mut self) {
        self.lines.extend(self.rx.try_iter());
    }

    fn text(&self) -> String {
        self.lines
            .iter()
            .map(|(_, e, l)| format!("{}{l}\n", if *e { "[err] " } else { "" }))
            .collect()
    }

    /// Waits up to `patience` for a line containing `want`.
    fn expect(&mut self, want: &str, patience: Duration) -> Instant {
        let until = Instant::now() + patience;
        loop {
            self.drain();
            if let Some((t, _, _)) = self.lines.iter().find(|(_, _, l)| l.contains(want)) {
                return *t;
            }
            assert!(
                Instant::now() < until && self.child.try_wait().ok().flatten().is_none(),
                "no line with {want:?}:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the job's end until `deadline` (the namespaces' teardown
    /// kills it if that passes) and returns its status.
    fn finish(&mut self, deadline: Instant) -> Option<i32> {
        loop {
            self.drain();
            if let Some(status) = self.child.try_wait().expect("wait for the job") {
                // What the readers still hold.
                std::thread::sleep(Duration::from_millis(200));
                self.drain();
                return status.code();
            }
            assert!(
                Instant::now() < deadline,
                "the job did not end in time:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn setup(which: char) -> (Nodes, String) {
    let program = compile(OSHCC, &dir().join("netfault.c"), &[]);
    (Nodes::up(which), program)
}

/// The longest round the PEs reported, in seconds.
fn longest_stall(job: &Job) -> f64 {
    job.lines
        .iter()
        .filter_map(|(_, _, l)| l.split(" took ").nth(1)?.split(' ').next()?.parse::<f64>().ok())
        .fold(0.0, f64::max)
}

#[test]
fn a_short_outage_is_ridden_out_with_data_checked() {
    if !can_run() {
        return;
    }
    let (nodes, program) = setup('s');
    let agent = dir().join("fake-ssh");
    let mut env = rshmem_env(agent.to_str().unwrap());
    env.push(("SHMEM_NETWORK_TIMEOUT", "15"));
    let mut job = Job::start(&nodes, &program, "14", &env);
    job.expect("netfault started", Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    nodes.link(false);
    std::thread::sleep(Duration::from_secs(5));
    nodes.link(true);
    let code = job.finish(Instant::now() + Duration::from_secs(60));
    let text = job.text();
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("netfault ok: "), "{text}");
    assert!(!text.contains("has not answered"), "the watch fired:\n{text}");
    let stall = longest_stall(&job);
    assert!(
        stall >= 4.0,
        "no round waited for the link (longest {stall} s):\n{text}"
    );
    assert_eq!(nodes.leftovers(Duration::from_secs(5)), Vec::<String>::new());
}

#[test]
fn a_longer_outage_ends_the_job_naming_the_node() {
    if !can_run() {
        return;
    }
    let (nodes, program) = setup('l');
    let agent = dir().join("fake-ssh");
    let mut env = rshmem_env(agent.to_str().unwrap());
    let secs = BOUND.as_secs().to_string();
    env.push(("SHMEM_NETWORK_TIMEOUT", &secs));
    // It would run for two minutes.
    let mut job = Job::start(&nodes, &program, "120", &env);
    job.expect("netfault started", Duration::from_secs(30));
    std::thread::sleep(Duration::from_secs(2));
    let down = Instant::now();
    nodes.link(false);
    // Every PE, on both nodes, ends within the bound and the margin.
    let gone = loop {
        job.drain();
        if nodes.processes("netfault").is_empty() {
            break down.elapsed();
        }
        assert!(
            down.elapsed() < BOUND + MARGIN,
            "PEs still run {:?} after the link went down: {:?}\n{}",
            down.elapsed(),
            nodes.processes("netfault"),
            job.text()
        );
        std::thread::sleep(Duration::from_millis(100));
    };
    std::thread::sleep((down + Duration::from_secs(30)).saturating_duration_since(Instant::now()));
    nodes.link(true);
    let code = job.finish(down + Duration::from_secs(80));
    let ended = down.elapsed();
    let text = job.text();
    assert!(code.is_some_and(|c| c != 0), "exit {code:?}:\n{text}");
    assert!(!text.contains("netfault ok"), "{text}");
    // nodea's line comes at once; nodeb's through its daemon, after the link is back.
    let said = |lost: &str| {
        let want = format!("node {lost} has not answered for {secs} s (SHMEM_NETWORK_TIMEOUT={secs}): the network");
        job.lines
            .iter()
            .find(|(_, e, l)| *e && l.starts_with("rshmem: ") && l.contains(&want))
            .map(|(t, _, l)| (t.duration_since(down), l.clone()))
    };
    let (at, line) = said("nodeb (PEs 2, 3)").unwrap_or_else(|| panic!("nodea named no lost node:\n{text}"));
    assert!(
        at >= BOUND - Duration::from_secs(2) && at <= BOUND + MARGIN,
        "nodea reported {at:?} after the link went down: {line}"
    );
    assert!(line.contains("(PE 0 of 4)") || line.contains("(PE 1 of 4)"), "{line}");
    assert!(line.contains("ending this node's PEs 0, 1"), "{line}");
    let (_, line) = said("nodea (PEs 0, 1)").unwrap_or_else(|| panic!("nodeb named no lost node:\n{text}"));
    assert!(line.contains("ending this node's PEs 2, 3"), "{line}");
    eprintln!(
        "netfault: link down at 0 s; nodea's report at {at:.1?}, every PE gone at {gone:.1?}, mpirun ended \
         (status {code:?}) at {ended:.1?}, the link back up at 30 s"
    );
    assert_eq!(nodes.leftovers(Duration::from_secs(10)), Vec::<String>::new());
}
