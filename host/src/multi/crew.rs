//! [`Crew`]: one host thread a GPU, kept for the life of a set made in one
//! process, that queues the GPU's part of a call while the other threads
//! queue theirs.
//!
//! Queueing a reduction on a GPU (a kernel launch and the copy of its total)
//! costs the host microseconds, most of it in the driver and in switching
//! the thread's context, so one thread queueing several GPUs one after
//! another starts the last one late (guide chapter 7 has the figures). The
//! crew queues them at once: the calling thread takes rank 0, a thread of
//! the crew each other rank. Between calls the threads spin for a while,
//! so that the next call's hand-over costs no wake-up, then sleep until
//! woken; a rank whose thread has not taken its part by the time the
//! caller is done with rank 0 (asleep, waking up) is run by the caller,
//! so a call is never slower than one thread doing every rank in turn.

use std::any::Any;
use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle, Thread};
use std::time::{Duration, Instant};

/// How long a crew thread spins for the next job before it sleeps, unless
/// `COOP_CREW_SPIN_US` says otherwise: back-to-back calls (a loop of
/// reductions) hand over without a wake-up, and an idle set costs no CPU
/// after this.
const SPIN: Duration = Duration::from_millis(2);

/// The threads that run each GPU's part of a call, but rank 0's, which the
/// calling thread runs.
pub(super) struct Crew {
    hands: Vec<Hand>,
    /// Held while a job runs: one job at a time.
    busy: Mutex<()>,
}

impl std::fmt::Debug for Crew {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Crew({} threads)", self.hands.len())
    }
}

/// One thread of the crew: rank `index + 1`.
struct Hand {
    post: Arc<Post>,
    thread: Option<JoinHandle<()>>,
}

/// What the calling thread and one crew thread share.
struct Post {
    /// The number of the last job posted (0: none yet).
    posted: AtomicU64,
    /// The number of the last job claimed, by the crew thread or by the
    /// caller (which runs a job itself when the thread has not taken it
    /// by the time the caller is free): exactly one of them moves it from
    /// `n - 1` to `n`.
    claimed: AtomicU64,
    /// The number of the last job the crew thread finished.
    done: AtomicU64,
    /// Set when the crew is dropped: the thread ends.
    stop: AtomicBool,
    /// The job, and the thread to wake when it is done.
    job: Mutex<Option<(Job, Thread)>>,
    /// The panic of the last job, if it panicked, for the caller to resume.
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// A job's closure, borrowed for the duration of [`Crew::each`] with its
/// lifetime erased: `each` does not return before every thread has
/// finished with it.
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the closure is `Sync`, so calling it through a shared pointer
// from another thread is allowed; `each` keeps it alive while it is used.
unsafe impl Send for Job {}

impl Crew {
    /// A crew for a set of `count` GPUs: `count - 1` threads (none for one
    /// GPU).
    pub(super) fn new(count: usize) -> Crew {
        let spin = std::env::var("COOP_CREW_SPIN_US")
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(SPIN, Duration::from_micros);
        let hands = (1..count)
            .map(|rank| {
                let post = Arc::new(Post {
                    posted: AtomicU64::new(0),
                    claimed: AtomicU64::new(0),
                    done: AtomicU64::new(0),
                    stop: AtomicBool::new(false),
                    job: Mutex::new(None),
                    panic: Mutex::new(None),
                });
                let theirs = Arc::clone(&post);
                let thread = thread::Builder::new()
                    .name(format!("coop-gpu-{rank}"))
                    .spawn(move || work(rank, &theirs, spin))
                    .ok();
                Hand { post, thread }
            })
            .collect();
        Crew {
            hands,
            busy: Mutex::new(()),
        }
    }

    /// `f(rank)` for every rank of the set at once, rank 0 on the calling
    /// thread, the others on the crew's (or on the calling thread, in
    /// order, where their thread has not taken them when it is free);
    /// returns when all have finished, their results in rank order. A panic in `f` is resumed here once
    /// every rank has finished. Where the crew could not start a thread,
    /// the calling thread runs that rank itself.
    pub(super) fn each<R: Send>(&self, f: impl Fn(usize) -> R + Sync) -> Vec<R> {
        let _busy = lock(&self.busy);
        let results: Vec<Mutex<Option<R>>> =
            (0..=self.hands.len()).map(|_| Mutex::new(None)).collect();
        let job = |rank: usize| {
            let r = f(rank);
            *lock(&results[rank]) = Some(r);
        };
        let borrowed: &(dyn Fn(usize) + Sync) = &job;
        // SAFETY: `transmute` erases the closure's lifetime: the crew's
        // threads call it only between the post below and their `done`
        // mark, and this function waits for every posted thread's mark
        // before it returns or unwinds (nothing between the posts and the
        // waits unwinds: rank 0's part is run under `catch_unwind`).
        let erased = Job(unsafe {
            std::mem::transmute::<
                *const (dyn Fn(usize) + Sync + '_),
                *const (dyn Fn(usize) + Sync + 'static),
            >(borrowed)
        });
        let me = thread::current();
        // The number of each thread's job, `None` where there is no thread.
        let mut posted = Vec::with_capacity(self.hands.len());
        for hand in &self.hands {
            let Some(thread) = &hand.thread else {
                posted.push(None);
                continue;
            };
            *lock(&hand.post.job) = Some((erased, me.clone()));
            let number = hand.post.posted.load(Ordering::Relaxed) + 1;
            hand.post.posted.store(number, Ordering::Release);
            thread.thread().unpark();
            posted.push(Some(number));
        }
        let mine = panic::catch_unwind(AssertUnwindSafe(|| job(0)));
        let mut panicked = mine.err();
        for (i, number) in posted.into_iter().enumerate() {
            let taken = number.is_some_and(|number| {
                let post = &self.hands[i].post;
                let theirs = post
                    .claimed
                    .compare_exchange(number - 1, number, Ordering::AcqRel, Ordering::Acquire)
                    .is_err();
                if theirs {
                    wait_for(|| post.done.load(Ordering::Acquire) >= number);
                    if let Some(p) = lock(&post.panic).take() {
                        panicked.get_or_insert(p);
                    }
                }
                theirs
            });
            // The thread has not taken it (asleep), or there is no thread:
            // run it here.
            if !taken {
                if let Err(p) = panic::catch_unwind(AssertUnwindSafe(|| job(i + 1))) {
                    panicked.get_or_insert(p);
                }
            }
        }
        if let Some(p) = panicked {
            panic::resume_unwind(p);
        }
        results
            .into_iter()
            .map(|r| {
                r.into_inner()
                    .unwrap_or_else(|p| p.into_inner())
                    .expect("every rank ran")
            })
            .collect()
    }
}

impl Drop for Crew {
    fn drop(&mut self) {
        for hand in &self.hands {
            hand.post.stop.store(true, Ordering::Release);
            if let Some(thread) = &hand.thread {
                thread.thread().unpark();
            }
        }
        for hand in &mut self.hands {
            if let Some(thread) = hand.thread.take() {
                let _ = thread.join();
            }
        }
    }
}

/// A crew thread's life: wait for a job (spinning for `spin`, then
/// sleeping), run it for `rank`, mark it done, wake the caller.
fn work(rank: usize, post: &Post, spin: Duration) {
    let mut seen = 0;
    loop {
        wait_with(spin, || {
            post.posted.load(Ordering::Acquire) > seen || post.stop.load(Ordering::Acquire)
        });
        if post.stop.load(Ordering::Acquire) {
            return;
        }
        seen = post.posted.load(Ordering::Acquire);
        if post
            .claimed
            .compare_exchange(seen - 1, seen, Ordering::AcqRel, Ordering::Acquire)
            .is_err()
        {
            // The caller ran it.
            continue;
        }
        let Some((Job(job), caller)) = lock(&post.job).take() else {
            continue;
        };
        // SAFETY: the job is alive until this thread marks it done below
        // (`Crew::each` waits for the mark).
        let ran = panic::catch_unwind(AssertUnwindSafe(|| unsafe { (*job)(rank) }));
        if let Err(p) = ran {
            *lock(&post.panic) = Some(p);
        }
        post.done.store(seen, Ordering::Release);
        caller.unpark();
    }
}

/// Waits until `ready`, spinning (the hand-over is a few hundred
/// nanoseconds) and then sleeping: the caller waits for GPU work queued by
/// other threads, microseconds.
fn wait_for(ready: impl Fn() -> bool) {
    wait_with(SPIN, ready)
}

/// Waits until `ready`: checks it spinning for `spin`, then parks the
/// thread between checks (woken by an `unpark`, or after 1 ms at the
/// latest).
fn wait_with(spin: Duration, ready: impl Fn() -> bool) {
    let start = Instant::now();
    let mut polls = 0u32;
    while !ready() {
        polls = polls.wrapping_add(1);
        if !polls.is_multiple_of(64) || start.elapsed() < spin {
            std::hint::spin_loop();
        } else {
            thread::park_timeout(Duration::from_millis(1));
        }
    }
}

/// `m` locked, whether or not a thread panicked holding it (what it
/// guards stays consistent: each value is written whole).
pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn each_runs_every_rank_once_and_returns_in_rank_order() {
        let crew = Crew::new(4);
        let calls = AtomicUsize::new(0);
        for round in 0..100 {
            let out = crew.each(|rank| {
                calls.fetch_add(1, Ordering::Relaxed);
                rank * 10 + round
            });
            assert_eq!(out, [round, 10 + round, 20 + round, 30 + round]);
        }
        assert_eq!(calls.load(Ordering::Relaxed), 400);
    }

    #[test]
    fn the_ranks_run_on_different_threads() {
        let crew = Crew::new(3);
        // Rank 0 takes long enough for the new threads to take theirs.
        let ids = crew.each(|rank| {
            if rank == 0 {
                thread::sleep(Duration::from_millis(50));
            }
            thread::current().id()
        });
        assert_ne!(ids[0], ids[1]);
        assert_ne!(ids[1], ids[2]);
        assert_eq!(ids[0], thread::current().id());
    }

    #[test]
    fn a_panic_on_a_crew_thread_reaches_the_caller_after_every_rank_ends() {
        let crew = Crew::new(3);
        let finished = AtomicUsize::new(0);
        let caught = panic::catch_unwind(AssertUnwindSafe(|| {
            crew.each(|rank| {
                if rank == 2 {
                    panic!("rank 2 failed");
                }
                thread::sleep(Duration::from_millis(20));
                finished.fetch_add(1, Ordering::Relaxed);
            })
        }));
        let message = caught.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"rank 2 failed"));
        assert_eq!(finished.load(Ordering::Relaxed), 2);
        // The crew still works.
        assert_eq!(crew.each(|rank| rank), [0, 1, 2]);
    }

    #[test]
    fn sleeping_threads_wake_for_the_next_job() {
        let crew = Crew::new(2);
        assert_eq!(crew.each(|rank| rank), [0, 1]);
        thread::sleep(SPIN * 3);
        assert_eq!(crew.each(|rank| rank + 1), [1, 2]);
    }

    #[test]
    fn the_caller_runs_the_ranks_of_sleeping_threads() {
        let crew = Crew::new(3);
        assert_eq!(crew.each(|rank| rank), [0, 1, 2]);
        // Once the threads sleep, a call whose rank 0 is quick finds them
        // still waking up and runs some of their ranks itself; every rank
        // runs once either way.
        thread::sleep(SPIN * 3);
        let me = thread::current().id();
        let calls = AtomicUsize::new(0);
        let ids = crew.each(|_| {
            calls.fetch_add(1, Ordering::Relaxed);
            thread::current().id()
        });
        assert_eq!(calls.load(Ordering::Relaxed), 3);
        assert_eq!(ids[0], me);
        // And when rank 0 takes long, the woken threads take their ranks.
        let ids = crew.each(|rank| {
            if rank == 0 {
                thread::sleep(Duration::from_millis(50));
            }
            thread::current().id()
        });
        assert!(ids[1] != me && ids[2] != me, "{ids:?}");
    }

    #[test]
    fn one_gpu_needs_no_thread() {
        let crew = Crew::new(1);
        assert_eq!(crew.each(|rank| rank), [0]);
    }
}
