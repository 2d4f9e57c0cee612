//! A watchdog for GPU tests: a kernel that hangs the GPU (a barrier some
//! threads never reach) would otherwise stop the test run for good. Arm it
//! around each launch; if the launch has not finished by its deadline, the
//! watchdog names what hung and ends the test process with exit code 124,
//! so a hang costs seconds and reads as a failure naming the kernel. Its
//! message goes straight to the process's standard error, past the test
//! harness's capture. Loading PTX (which the driver compiles, 20 s on a
//! cold machine for coop-host's families) is not a launch: the GPU suite
//! loads every module once, under the limit of a whole test, before any
//! launch is watched.

use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

struct Armed {
    id: u64,
    what: String,
    deadline: Instant,
    limit: Duration,
}

fn slots() -> &'static Mutex<(u64, Vec<Armed>)> {
    static SLOTS: OnceLock<Mutex<(u64, Vec<Armed>)>> = OnceLock::new();
    SLOTS.get_or_init(|| {
        std::thread::spawn(|| loop {
            std::thread::sleep(Duration::from_millis(50));
            let now = Instant::now();
            let guard = slots().lock().unwrap_or_else(|e| e.into_inner());
            if let Some(late) = guard.1.iter().find(|a| a.deadline <= now) {
                // Straight to the process's standard error: `eprintln!` in a
                // test (and in the threads it spawns) goes to the harness's
                // capture, which the exit below would throw away.
                use std::io::Write;
                let _ = writeln!(
                    std::io::stderr(),
                    "watchdog: `{}` did not finish within {:?}; the GPU is hung in it. \
                     Ending the test process with exit code 124.",
                    late.what,
                    late.limit
                );
                let _ = std::io::stderr().flush();
                std::process::exit(124);
            }
        });
        Mutex::new((0, Vec::new()))
    })
}

/// Disarms its watchdog when dropped.
#[must_use = "the watchdog is disarmed when this is dropped"]
pub struct Watch(u64);

impl Drop for Watch {
    fn drop(&mut self) {
        let mut guard = slots().lock().unwrap_or_else(|e| e.into_inner());
        guard.1.retain(|a| a.id != self.0);
    }
}

/// Arms a watchdog for `what`, which must finish within `limit`.
pub fn watch(what: impl Into<String>, limit: Duration) -> Watch {
    let mut guard = slots().lock().unwrap_or_else(|e| e.into_inner());
    guard.0 += 1;
    let id = guard.0;
    guard.1.push(Armed {
        id,
        what: what.into(),
        deadline: Instant::now() + limit,
        limit,
    });
    Watch(id)
}

/// Runs `f` under a watchdog for `what`.
pub fn watched<T>(what: impl Into<String>, limit: Duration, f: impl FnOnce() -> T) -> T {
    let _watch = watch(what, limit);
    f()
}
