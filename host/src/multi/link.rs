//! [`Link`]: the processes of one job joined over TCP, for what a job of
//! one process a device needs besides NCCL: the rendezvous (rank 0 shares
//! NCCL's unique id), the data the CPU backend's ranks combine, the check
//! that every rank makes the same collective call, and news of a rank that
//! failed.
//!
//! ```text
//!   rank 0 ─ listens; one reader thread a member, which forwards a
//!    │        member's failure to the others at once
//!    ├── rank 1 ─ connects; one reader thread
//!    ├── rank 2
//!    └── ...
//! ```
//!
//! A collective is an all-gather through rank 0: each member posts its
//! part (the call's name, the element type and bytes), rank 0 checks that
//! every rank made the same call and sends everyone all parts in rank
//! order. A member that exits without leaving closes its socket; rank 0's
//! reader sees the end of the stream and tells the others, so that a rank
//! waiting on its GPU for NCCL hears of it too and aborts.

use super::join::{Join, Rendezvous};
use crate::Error;
use std::io::{self, Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What every message of the rendezvous starts with: another program at
/// the address, or another version of coop, is turned away.
const MAGIC: &[u8; 8] = b"coop-mp1";

/// Message tags.
const HELLO: u8 = 1;
const WELCOME: u8 = 2;
const REFUSED: u8 = 3;
const PART: u8 = 4;
const ALL: u8 = 5;
const FAILED: u8 = 6;
const BYE: u8 = 7;
const PING: u8 = 8;

/// The longest a rank's connection may stay silent before the rank is
/// taken for dead: every rank sends a ping five times within it, from a
/// thread of its own, whatever the rank is busy with. A killed process
/// whose sockets the system keeps open while it tears the process's GPU
/// context down, a hung machine or a cut network are caught this way.
/// Shorter where the job's timeout is shorter.
const SILENCE: Duration = Duration::from_secs(10);

/// A rank that failed, and how, for [`Error::Rank`].
#[derive(Clone, Debug)]
pub(super) struct Failure {
    pub rank: usize,
    pub problem: String,
}

impl Failure {
    /// The error a call sees.
    pub fn error(self, call: &'static str) -> Error {
        Error::Rank {
            call,
            rank: self.rank,
            problem: self.problem,
        }
    }
}

/// One rank's part of a collective.
#[derive(Debug)]
struct Part {
    seq: u64,
    call: String,
    ty: String,
    bytes: Vec<u8>,
}

/// What a reader thread hands the rank's own thread.
#[derive(Debug)]
enum Incoming {
    /// A member's part (at rank 0).
    Part(Part),
    /// Every rank's bytes of collective `seq`, in rank order (at a member).
    All { seq: u64, parts: Vec<Vec<u8>> },
    /// A rank failed or left; the set is unusable.
    Gone(Failure),
}

/// State the reader threads share with the rank's own thread.
#[derive(Debug, Default)]
struct Shared {
    /// The first failure heard of.
    failure: Mutex<Option<Failure>>,
    /// Rank 0's goodbye, at a member: not a failure while this rank only
    /// waits for its own GPU (rank 0 waited for its part of every
    /// collective before leaving), but the end of the job's collectives.
    left: Mutex<Option<Failure>>,
    /// Set while this rank leaves: the ends of streams that follow are
    /// its own doing.
    closing: AtomicBool,
}

impl Shared {
    fn fail(&self, failure: Failure) {
        let mut slot = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        slot.get_or_insert(failure);
    }

    fn failure(&self) -> Option<Failure> {
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    fn left(&self) -> Option<Failure> {
        self.left.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

#[derive(Debug)]
enum Role {
    /// A job of one rank: nothing to join.
    Alone,
    /// Rank 0: one writer a member (rank `r` at `r - 1`) and the parts and
    /// failures its readers hand over.
    Hub {
        writers: Arc<Vec<Mutex<TcpStream>>>,
        inbox: Receiver<(usize, Incoming)>,
    },
    /// Another rank: its stream to rank 0 and what its reader hands over.
    Member {
        /// One writer: the stream to rank 0.
        writer: Arc<Vec<Mutex<TcpStream>>>,
        inbox: Receiver<Incoming>,
    },
}

/// This process's connection to the other ranks of its job.
#[derive(Debug)]
pub(super) struct Link {
    rank: usize,
    world: usize,
    timeout: Duration,
    role: Role,
    shared: Arc<Shared>,
    readers: Vec<JoinHandle<()>>,
    seq: std::cell::Cell<u64>,
}

/// A part posted and not yet collected.
#[must_use = "a posted part must be collected, or the other ranks wait for this one"]
pub(super) struct Posted {
    seq: u64,
    call: &'static str,
    ty: &'static str,
    own: Vec<u8>,
}

impl Link {
    /// Joins the job `join` describes, running on `backend` (`"GPUs"` or
    /// `"the CPU backend"`; every rank must use the same). Rank 0 makes
    /// `secret` (NCCL's unique id, or nothing) and every rank gets it.
    /// Returns when every rank has arrived, or fails with [`Error::Join`]
    /// naming the ranks that did not, in `join.timeout()`.
    pub fn join(
        join: &Join,
        backend: &str,
        secret: impl FnOnce() -> Result<Vec<u8>, Error>,
    ) -> Result<(Link, Vec<u8>), Error> {
        let shared = Arc::new(Shared::default());
        let link = |role, readers| Link {
            rank: join.rank(),
            world: join.world(),
            timeout: join.timeout(),
            role,
            shared: shared.clone(),
            readers,
            seq: std::cell::Cell::new(0),
        };
        if join.world() == 1 {
            return Ok((link(Role::Alone, Vec::new()), secret()?));
        }
        let silence = SILENCE.min(join.timeout()).max(Duration::from_millis(200));
        if join.rank() == 0 {
            let secret = secret()?;
            let streams = host(join, backend, &secret)?;
            let (to_hub, inbox) = mpsc::channel();
            let writers = streams
                .iter()
                .map(|s| s.try_clone().map(Mutex::new))
                .collect::<io::Result<Vec<_>>>()
                .map_err(|e| join_error(join, format!("cloning a socket: {e}")))?;
            let writers = Arc::new(writers);
            let readers = streams
                .into_iter()
                .enumerate()
                .map(|(i, stream)| {
                    let (to_hub, writers, shared) =
                        (to_hub.clone(), writers.clone(), shared.clone());
                    let _ = stream.set_read_timeout(Some(silence));
                    std::thread::spawn(move || read_member(i + 1, stream, to_hub, writers, shared))
                })
                .collect();
            ping(writers.clone(), silence / 5, shared.clone());
            Ok((link(Role::Hub { writers, inbox }, readers), secret))
        } else {
            let (stream, secret) = member(join, backend)?;
            let writer = stream
                .try_clone()
                .map_err(|e| join_error(join, format!("cloning a socket: {e}")))?;
            let (to_me, inbox) = mpsc::channel();
            let _ = stream.set_read_timeout(Some(silence));
            let reader = {
                let shared = shared.clone();
                std::thread::spawn(move || read_hub(stream, to_me, shared))
            };
            let writer = Arc::new(vec![Mutex::new(writer)]);
            ping(writer.clone(), silence / 5, shared.clone());
            let role = Role::Member { writer, inbox };
            Ok((link(role, vec![reader]), secret))
        }
    }

    /// This process's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks.
    pub fn world(&self) -> usize {
        self.world
    }

    /// The failure heard of, if any: a rank that crashed, went silent,
    /// timed out or called something else (not rank 0's leaving, which
    /// only ends the collectives).
    pub fn failure(&self) -> Option<Failure> {
        self.shared.failure()
    }

    /// Records a failure found by this rank (an NCCL error, a GPU wait
    /// given up), so that later calls see the set as unusable.
    pub fn fail(&self, failure: Failure) {
        self.shared.fail(failure);
    }

    /// Tells the other ranks that this rank failed in the middle of a
    /// collective (`problem`: what happened), so that those waiting for it,
    /// on NCCL too, end their call with [`Error::Rank`] naming it.
    pub fn abandon(&self, problem: String) {
        let failure = Failure {
            rank: self.rank,
            problem,
        };
        self.fail(failure.clone());
        match &self.role {
            Role::Alone => {}
            Role::Hub { writers, .. } => tell_all(writers, &failure, None),
            Role::Member { writer, .. } => {
                let mut message = Message::default();
                message.u64(failure.rank as u64).str(&failure.problem);
                let mut stream = writer[0].lock().unwrap_or_else(|e| e.into_inner());
                let _ = send(&mut *stream, FAILED, &message.0);
            }
        }
    }

    /// Sends this rank's part of the next collective (a member sends it to
    /// rank 0 at once; rank 0 keeps its own), so that the rank can queue
    /// its GPU's work before [`collect`](Self::collect) waits for the
    /// others.
    pub fn post(
        &self,
        call: &'static str,
        ty: &'static str,
        bytes: Vec<u8>,
    ) -> Result<Posted, Error> {
        if let Some(failure) = self.failure().or_else(|| self.shared.left()) {
            return Err(failure.error(call));
        }
        let seq = self.seq.get() + 1;
        self.seq.set(seq);
        if let Role::Member { writer, inbox } = &self.role {
            let mut message = Message::default();
            message.u64(seq).str(call).str(ty).bytes(&bytes);
            let mut stream = writer[0].lock().unwrap_or_else(|e| e.into_inner());
            if send(&mut *stream, PART, &message.0).is_err() {
                // Rank 0 closed the connection: what it said before (a
                // failure it reported, its goodbye) is still on its way
                // through the reader; that is the cause to name.
                let said = match inbox.recv_timeout(Duration::from_secs(1)) {
                    Ok(Incoming::Gone(failure)) => Some(failure),
                    _ => self.failure().or_else(|| self.shared.left()),
                };
                let failure = said.unwrap_or(Failure {
                    rank: 0,
                    problem: "closed its connection (it exited or crashed)".into(),
                });
                self.fail(failure.clone());
                return Err(failure.error(call));
            }
            return Ok(Posted {
                seq,
                call,
                ty,
                own: Vec::new(),
            });
        }
        Ok(Posted {
            seq,
            call,
            ty,
            own: bytes,
        })
    }

    /// Waits for every rank's part of `posted`'s collective and returns
    /// them in rank order. Fails with [`Error::Rank`] naming a rank that
    /// failed, left, did not arrive within the timeout, or made another
    /// call; every waiting rank gets the same error.
    pub fn collect(&self, posted: Posted) -> Result<Vec<Vec<u8>>, Error> {
        let Posted { seq, call, ty, own } = posted;
        match &self.role {
            Role::Alone => Ok(vec![own]),
            Role::Hub { writers, inbox } => {
                let mut parts: Vec<Option<Vec<u8>>> = vec![None; self.world];
                parts[0] = Some(own);
                let deadline = Instant::now() + self.timeout;
                while parts.iter().any(Option::is_none) {
                    let left = deadline.saturating_duration_since(Instant::now());
                    let failure = match inbox.recv_timeout(left) {
                        Ok((rank, Incoming::Part(part))) if part.seq == seq => {
                            if part.call != call || part.ty != ty {
                                Some(Failure {
                                    rank,
                                    problem: format!(
                                        "called `{}` on `{}` where rank 0 called `{call}` on \
                                         `{ty}`: every rank must make the same collective calls \
                                         in the same order",
                                        part.call, part.ty
                                    ),
                                })
                            } else {
                                parts[rank] = Some(part.bytes);
                                None
                            }
                        }
                        Ok((rank, Incoming::Part(part))) => Some(Failure {
                            rank,
                            problem: format!(
                                "is at its collective call number {} (`{}`) where rank 0 is at \
                                 number {seq}: every rank must make the same collective calls",
                                part.seq, part.call
                            ),
                        }),
                        // The first failure heard of is the cause; a rank
                        // leaving after it is its consequence.
                        Ok((_, Incoming::Gone(failure))) => Some(self.failure().unwrap_or(failure)),
                        Ok((_, Incoming::All { .. })) => None,
                        Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {
                            let missing: Vec<usize> =
                                (0..self.world).filter(|&r| parts[r].is_none()).collect();
                            Some(Failure {
                                rank: missing[0],
                                problem: format!(
                                    "did not reach `{call}` within {:?} (ranks not there: \
                                     {missing:?}); raise the timeout with `Join::with_timeout` or \
                                     COOP_TIMEOUT_S if a rank's work before the call is that long",
                                    self.timeout
                                ),
                            })
                        }
                    };
                    if let Some(failure) = failure {
                        self.fail(failure.clone());
                        tell_all(writers, &failure, None);
                        return Err(failure.error(call));
                    }
                }
                let parts: Vec<Vec<u8>> =
                    parts.into_iter().map(Option::unwrap_or_default).collect();
                let mut message = Message::default();
                message.u64(seq).u64(parts.len() as u64);
                for part in &parts {
                    message.bytes(part);
                }
                for (i, writer) in writers.iter().enumerate() {
                    let mut stream = writer.lock().unwrap_or_else(|e| e.into_inner());
                    if send(&mut *stream, ALL, &message.0).is_err() {
                        let failure = Failure {
                            rank: i + 1,
                            problem: "closed its connection (it exited or crashed)".into(),
                        };
                        self.fail(failure.clone());
                        drop(stream);
                        tell_all(writers, &failure, Some(i + 1));
                        return Err(failure.error(call));
                    }
                }
                Ok(parts)
            }
            Role::Member { inbox, .. } => {
                // Rank 0 reports the others' lateness; a little longer here
                // so that its report, naming the late rank, arrives first.
                let limit = self.timeout + Duration::from_secs(5);
                let failure = match inbox.recv_timeout(limit) {
                    Ok(Incoming::All { seq: got, parts })
                        if got == seq && parts.len() == self.world =>
                    {
                        return Ok(parts)
                    }
                    Ok(Incoming::All { seq: got, .. }) => Failure {
                        rank: 0,
                        problem: format!(
                            "answered collective call number {got} where this rank is at {seq}: \
                             the ranks run different programs"
                        ),
                    },
                    Ok(Incoming::Gone(failure)) => failure,
                    Ok(Incoming::Part(_)) => Failure {
                        rank: 0,
                        problem: "sent a part as if it were not rank 0".into(),
                    },
                    Err(RecvTimeoutError::Timeout) => Failure {
                        rank: 0,
                        problem: format!("did not answer `{call}` within {limit:?}"),
                    },
                    Err(RecvTimeoutError::Disconnected) => self.failure().unwrap_or(Failure {
                        rank: 0,
                        problem: "closed its connection (it exited or crashed)".into(),
                    }),
                };
                self.fail(failure.clone());
                Err(failure.error(call))
            }
        }
    }
}

impl Drop for Link {
    fn drop(&mut self) {
        self.shared.closing.store(true, Ordering::SeqCst);
        match &self.role {
            Role::Alone => {}
            Role::Hub { writers, .. } => {
                for writer in writers.iter() {
                    let mut stream = writer.lock().unwrap_or_else(|e| e.into_inner());
                    let _ = send(&mut *stream, BYE, &[]);
                    let _ = stream.shutdown(Shutdown::Both);
                }
            }
            Role::Member { writer, .. } => {
                let mut stream = writer[0].lock().unwrap_or_else(|e| e.into_inner());
                let _ = send(&mut *stream, BYE, &[]);
                let _ = stream.shutdown(Shutdown::Both);
            }
        }
        for reader in self.readers.drain(..) {
            let _ = reader.join();
        }
    }
}

/// Rank 0's reader of member `rank`: hands parts over, and on the end of
/// the stream without a goodbye tells every other member at once.
fn read_member(
    rank: usize,
    mut stream: TcpStream,
    to_hub: Sender<(usize, Incoming)>,
    writers: Arc<Vec<Mutex<TcpStream>>>,
    shared: Arc<Shared>,
) {
    loop {
        let gone = match receive(&mut stream) {
            Ok((PART, payload)) => match Part::decode(&payload) {
                Some(part) => {
                    let _ = to_hub.send((rank, Incoming::Part(part)));
                    continue;
                }
                None => Failure {
                    rank,
                    problem: "sent a message coop cannot read (another version of coop?)".into(),
                },
            },
            Ok((FAILED, payload)) => {
                let mut reader = Reader(&payload);
                Failure {
                    rank,
                    problem: reader
                        .u64()
                        .and(reader.str())
                        .unwrap_or_else(|| "failed".into()),
                }
            }
            Ok((PING, _)) => continue,
            Ok((BYE, _)) => {
                // Leaving is not a failure unless a collective follows.
                let _ = to_hub.send((
                    rank,
                    Incoming::Gone(Failure {
                        rank,
                        problem: "left the job (dropped its set of devices) before this call"
                            .into(),
                    }),
                ));
                return;
            }
            Ok(_) => Failure {
                rank,
                problem: "sent a message out of turn (another version of coop?)".into(),
            },
            Err(_) if shared.closing.load(Ordering::SeqCst) => return,
            Err(e) if silent(&e) => Failure {
                rank,
                problem: format!("{} {SILENT}", silence_of(&stream)),
            },
            Err(_) => Failure {
                rank,
                problem: "exited without leaving the job (a crash, a kill, or an exit before \
                          its set of devices was dropped)"
                    .into(),
            },
        };
        // Rank 0's own thread hears of it before any rank told below can
        // react (leave, say) and be reported in its place.
        shared.fail(gone.clone());
        let _ = to_hub.send((rank, Incoming::Gone(gone.clone())));
        tell_all(&writers, &gone, Some(rank));
        return;
    }
}

/// A member's reader of rank 0: hands results over; a failure rank 0
/// reports, its goodbye or the end of its stream mark the set unusable.
fn read_hub(mut stream: TcpStream, to_me: Sender<Incoming>, shared: Arc<Shared>) {
    loop {
        let failure = match receive(&mut stream) {
            Ok((ALL, payload)) => match decode_all(&payload) {
                Some((seq, parts)) => {
                    let _ = to_me.send(Incoming::All { seq, parts });
                    continue;
                }
                None => Failure {
                    rank: 0,
                    problem: "sent a message coop cannot read (another version of coop?)".into(),
                },
            },
            Ok((FAILED, payload)) => {
                let mut reader = Reader(&payload);
                match (reader.u64(), reader.str()) {
                    (Some(rank), Some(problem)) => Failure {
                        rank: rank as usize,
                        problem,
                    },
                    _ => Failure {
                        rank: 0,
                        problem: "reported a failure coop cannot read".into(),
                    },
                }
            }
            Ok((PING, _)) => continue,
            Ok((BYE, _)) => {
                let left = Failure {
                    rank: 0,
                    problem: "left the job (dropped its set of devices) before this call".into(),
                };
                *shared.left.lock().unwrap_or_else(|e| e.into_inner()) = Some(left.clone());
                let _ = to_me.send(Incoming::Gone(left));
                return;
            }
            Ok(_) => Failure {
                rank: 0,
                problem: "sent a message out of turn (another version of coop?)".into(),
            },
            Err(_) if shared.closing.load(Ordering::SeqCst) => return,
            Err(e) if silent(&e) => Failure {
                rank: 0,
                problem: format!("{} {SILENT}", silence_of(&stream)),
            },
            Err(_) => Failure {
                rank: 0,
                problem: "exited without leaving the job (a crash, a kill, or an exit before \
                          its set of devices was dropped)"
                    .into(),
            },
        };
        shared.fail(failure.clone());
        let _ = to_me.send(Incoming::Gone(failure));
        return;
    }
}

/// The end of a failure of a rank whose connection went silent.
const SILENT: &str = "without a word (its process hung, was killed while the system kept its \
                      connection open, or its machine or the network failed)";

/// Whether a read failed because the connection was silent too long.
fn silent(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// "stopped answering for 10s", from the stream's read timeout.
fn silence_of(stream: &TcpStream) -> String {
    match stream.read_timeout() {
        Ok(Some(limit)) => format!("stopped answering for {limit:?}"),
        _ => "stopped answering".into(),
    }
}

/// Starts the thread that pings every stream of `writers` every `period`
/// until the rank leaves, so that the other side knows this rank lives.
fn ping(writers: Arc<Vec<Mutex<TcpStream>>>, period: Duration, shared: Arc<Shared>) {
    std::thread::spawn(move || loop {
        let wake = Instant::now() + period;
        while Instant::now() < wake {
            if shared.closing.load(Ordering::SeqCst) {
                return;
            }
            std::thread::sleep(Duration::from_millis(20).min(period));
        }
        for writer in writers.iter() {
            let mut stream = writer.lock().unwrap_or_else(|e| e.into_inner());
            let _ = send(&mut *stream, PING, &[]);
        }
    });
}

/// Tells every member but `except` that `failure` happened.
fn tell_all(writers: &[Mutex<TcpStream>], failure: &Failure, except: Option<usize>) {
    let mut message = Message::default();
    message.u64(failure.rank as u64).str(&failure.problem);
    for (i, writer) in writers.iter().enumerate() {
        if Some(i + 1) != except {
            let mut stream = writer.lock().unwrap_or_else(|e| e.into_inner());
            let _ = send(&mut *stream, FAILED, &message.0);
        }
    }
}

/// Rank 0's side of the rendezvous: listens, greets every member, checks
/// that they agree on the job, and sends them `secret`. Returns the
/// members' streams, rank 1 first.
fn host(join: &Join, backend: &str, secret: &[u8]) -> Result<Vec<TcpStream>, Error> {
    let listener = match join.rendezvous() {
        Rendezvous::Tcp(address) => TcpListener::bind(address.as_str()).map_err(|e| {
            join_error(
                join,
                format!(
                    "rank 0 cannot listen at {address}: {e}; use a free port of this machine \
                     (another job may hold it)"
                ),
            )
        })?,
        Rendezvous::File(path) => {
            let listener = TcpListener::bind("0.0.0.0:0")
                .map_err(|e| join_error(join, format!("rank 0 cannot listen: {e}")))?;
            let port = listener
                .local_addr()
                .map_err(|e| join_error(join, format!("rank 0 cannot listen: {e}")))?
                .port();
            let mut lines = String::new();
            if let Some(name) = host_name() {
                lines.push_str(&format!("{name}:{port}\n"));
            }
            lines.push_str(&format!("127.0.0.1:{port}\n"));
            let draft = path.with_extension("coop-draft");
            std::fs::write(&draft, lines)
                .and_then(|()| std::fs::rename(&draft, path))
                .map_err(|e| {
                    join_error(
                        join,
                        format!(
                            "rank 0 cannot write the rendezvous file {}: {e}",
                            path.display()
                        ),
                    )
                })?;
            listener
        }
    };
    listener
        .set_nonblocking(true)
        .map_err(|e| join_error(join, format!("rank 0 cannot listen: {e}")))?;
    let deadline = Instant::now() + join.timeout();
    let mut members: Vec<Option<TcpStream>> = (1..join.world()).map(|_| None).collect();
    let mut refusal: Option<String> = None;
    while refusal.is_none() && members.iter().any(Option::is_none) {
        let (mut stream, _) = match listener.accept() {
            Ok(accepted) => accepted,
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                if Instant::now() >= deadline {
                    let missing: Vec<usize> = (1..join.world())
                        .filter(|&r| members[r - 1].is_none())
                        .collect();
                    refusal = Some(format!(
                        "ranks {missing:?} did not arrive at {} within {:?}; start every rank \
                         with the same rendezvous and world size, or raise the timeout",
                        join.rendezvous(),
                        join.timeout()
                    ));
                    break;
                }
                std::thread::sleep(Duration::from_millis(5));
                continue;
            }
            Err(e) => return Err(join_error(join, format!("rank 0 cannot accept: {e}"))),
        };
        let _ = stream.set_nonblocking(false);
        let _ = stream.set_nodelay(true);
        let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
        let Ok((HELLO, payload)) = receive(&mut stream) else {
            continue; // not a rank of coop's: ignore it
        };
        let mut reader = Reader(&payload);
        let (Some(magic), Some(rank), Some(world), Some(theirs)) = (
            reader.take(8).map(<[u8]>::to_vec),
            reader.u64(),
            reader.u64(),
            reader.str(),
        ) else {
            continue;
        };
        if magic != MAGIC {
            continue;
        }
        let (rank, world) = (rank as usize, world as usize);
        let problem = if world != join.world() {
            Some(format!(
                "rank {rank} was started for a job of {world} ranks, rank 0 for {}",
                join.world()
            ))
        } else if rank == 0 || rank >= world {
            Some(format!(
                "a second rank {rank} arrived (ranks are 0 to {})",
                world - 1
            ))
        } else if members[rank - 1].is_some() {
            Some(format!(
                "rank {rank} arrived twice: give every process its own rank"
            ))
        } else if theirs != backend {
            Some(format!(
                "rank {rank} runs on {theirs} and rank 0 on {backend}: every rank of a job \
                 must use the same"
            ))
        } else {
            None
        };
        match problem {
            Some(problem) => {
                let _ = send(&mut stream, REFUSED, problem.as_bytes());
                refusal = Some(problem);
            }
            None => {
                let _ = stream.set_read_timeout(None);
                members[rank - 1] = Some(stream);
            }
        }
    }
    if let Some(problem) = refusal {
        for stream in members.iter_mut().flatten() {
            let _ = send(stream, REFUSED, problem.as_bytes());
        }
        return Err(join_error(join, problem));
    }
    let members: Vec<TcpStream> = members.into_iter().flatten().collect();
    for (i, mut stream) in members.iter().enumerate() {
        if send(&mut stream, WELCOME, secret).is_err() {
            return Err(join_error(
                join,
                format!("rank {} closed its connection during the rendezvous", i + 1),
            ));
        }
    }
    Ok(members)
}

/// A member's side of the rendezvous: connects to rank 0 (retrying until
/// it listens), says who it is, and receives the job's secret.
fn member(join: &Join, backend: &str) -> Result<(TcpStream, Vec<u8>), Error> {
    let deadline = Instant::now() + join.timeout();
    let mut last = String::from("nothing tried");
    let mut stream = loop {
        let addresses: Vec<SocketAddr> = match join.rendezvous() {
            Rendezvous::Tcp(address) => match address.to_socket_addrs() {
                Ok(found) => found.collect(),
                Err(e) => {
                    last = format!("{address} does not resolve: {e}");
                    Vec::new()
                }
            },
            Rendezvous::File(path) => match std::fs::read_to_string(path) {
                Ok(text) => text
                    .lines()
                    .filter_map(|line| line.trim().to_socket_addrs().ok())
                    .flatten()
                    .collect(),
                Err(e) => {
                    last = format!("{} cannot be read yet: {e}", path.display());
                    Vec::new()
                }
            },
        };
        let connected = addresses.iter().find_map(|address| {
            match TcpStream::connect_timeout(address, Duration::from_secs(2)) {
                Ok(stream) => Some(stream),
                Err(e) => {
                    last = format!("connecting to {address}: {e}");
                    None
                }
            }
        });
        if let Some(stream) = connected {
            break stream;
        }
        if Instant::now() >= deadline {
            return Err(join_error(
                join,
                format!(
                    "rank 0 could not be reached at {} within {:?} (last: {last}); start rank 0 \
                     with the same rendezvous",
                    join.rendezvous(),
                    join.timeout()
                ),
            ));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let _ = stream.set_nodelay(true);
    let mut hello = Message::default();
    hello
        .raw(MAGIC)
        .u64(join.rank() as u64)
        .u64(join.world() as u64)
        .str(backend);
    send(&mut stream, HELLO, &hello.0)
        .map_err(|e| join_error(join, format!("greeting rank 0: {e}")))?;
    let _ = stream.set_read_timeout(Some(
        deadline.saturating_duration_since(Instant::now()) + Duration::from_secs(5),
    ));
    let reply = receive(&mut stream);
    let _ = stream.set_read_timeout(None);
    match reply {
        Ok((WELCOME, secret)) => Ok((stream, secret)),
        Ok((REFUSED, why)) => Err(join_error(
            join,
            format!("rank 0 refused the job: {}", String::from_utf8_lossy(&why)),
        )),
        Ok(_) => Err(join_error(join, "rank 0 answered out of turn".into())),
        Err(e) => Err(join_error(
            join,
            format!("rank 0 did not welcome this rank: {e}; a rank may be missing"),
        )),
    }
}

/// The machine's name, for the rendezvous file.
fn host_name() -> Option<String> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())?;
    let name = name.trim();
    (!name.is_empty()).then(|| name.to_string())
}

fn join_error(join: &Join, problem: String) -> Error {
    Error::Join {
        rank: Some(join.rank()),
        world: Some(join.world()),
        problem,
    }
}

/// Sends one message: its tag, its length (8 bytes, little-endian) and
/// its payload.
fn send(stream: &mut impl Write, tag: u8, payload: &[u8]) -> io::Result<()> {
    let mut head = [0u8; 9];
    head[0] = tag;
    head[1..].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    stream.write_all(&head)?;
    stream.write_all(payload)?;
    stream.flush()
}

/// Receives one message.
fn receive(stream: &mut impl Read) -> io::Result<(u8, Vec<u8>)> {
    let mut head = [0u8; 9];
    stream.read_exact(&mut head)?;
    let len = u64::from_le_bytes(head[1..].try_into().expect("8 bytes"));
    let mut payload = Vec::new();
    stream.take(len).read_to_end(&mut payload)?;
    if payload.len() as u64 != len {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    Ok((head[0], payload))
}

/// A message's payload, written field by field.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn raw(&mut self, bytes: &[u8]) -> &mut Self {
        self.0.extend_from_slice(bytes);
        self
    }

    fn u64(&mut self, value: u64) -> &mut Self {
        self.raw(&value.to_le_bytes())
    }

    fn bytes(&mut self, bytes: &[u8]) -> &mut Self {
        self.u64(bytes.len() as u64).raw(bytes)
    }

    fn str(&mut self, text: &str) -> &mut Self {
        self.bytes(text.as_bytes())
    }
}

/// A message's payload, read field by field.
struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn take(&mut self, len: usize) -> Option<&[u8]> {
        if self.0.len() < len {
            return None;
        }
        let (head, rest) = self.0.split_at(len);
        self.0 = rest;
        Some(head)
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn bytes(&mut self) -> Option<Vec<u8>> {
        let len = usize::try_from(self.u64()?).ok()?;
        Some(self.take(len)?.to_vec())
    }

    fn str(&mut self) -> Option<String> {
        String::from_utf8(self.bytes()?).ok()
    }
}

impl Part {
    fn decode(payload: &[u8]) -> Option<Part> {
        let mut reader = Reader(payload);
        Some(Part {
            seq: reader.u64()?,
            call: reader.str()?,
            ty: reader.str()?,
            bytes: reader.bytes()?,
        })
    }
}

fn decode_all(payload: &[u8]) -> Option<(u64, Vec<Vec<u8>>)> {
    let mut reader = Reader(payload);
    let seq = reader.u64()?;
    let count = reader.u64()?;
    let parts = (0..count).map(|_| reader.bytes()).collect::<Option<_>>()?;
    Some((seq, parts))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job(world: usize, port: u16, timeout: Duration) -> Vec<Join> {
        (0..world)
            .map(|rank| {
                Join::new(rank, world, Rendezvous::tcp(format!("127.0.0.1:{port}")))
                    .unwrap()
                    .with_timeout(timeout)
            })
            .collect()
    }

    /// A free port of the loopback (free when asked; tests use distinct
    /// ones).
    fn free_port() -> u16 {
        TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port()
    }

    fn all_gather(
        link: &Link,
        call: &'static str,
        ty: &'static str,
        bytes: Vec<u8>,
    ) -> Result<Vec<Vec<u8>>, Error> {
        let posted = link.post(call, ty, bytes)?;
        link.collect(posted)
    }

    #[test]
    fn ranks_gather_each_others_parts_in_rank_order() {
        let port = free_port();
        let threads: Vec<_> = job(3, port, Duration::from_secs(20))
            .into_iter()
            .map(|join| {
                std::thread::spawn(move || {
                    let (link, secret) =
                        Link::join(&join, "the CPU backend", || Ok(b"id".to_vec())).unwrap();
                    assert_eq!(secret, b"id");
                    let mut seen = Vec::new();
                    for round in 0..3u8 {
                        let mine = vec![join.rank() as u8; join.rank() + round as usize];
                        seen.push(all_gather(&link, "test", "u8", mine).unwrap());
                    }
                    seen
                })
            })
            .collect();
        for thread in threads {
            let seen = thread.join().unwrap();
            assert_eq!(seen[0], [vec![], vec![1], vec![2, 2]]);
            assert_eq!(seen[2], [vec![0, 0], vec![1, 1, 1], vec![2, 2, 2, 2]]);
        }
    }

    #[test]
    fn a_different_call_is_named_on_every_rank() {
        let port = free_port();
        let threads: Vec<_> = job(2, port, Duration::from_secs(20))
            .into_iter()
            .map(|join| {
                std::thread::spawn(move || {
                    let (link, _) = Link::join(&join, "the CPU backend", || Ok(vec![])).unwrap();
                    let ty = if join.rank() == 1 { "i32" } else { "f32" };
                    all_gather(&link, "sum", ty, vec![0; 4])
                        .unwrap_err()
                        .to_string()
                })
            })
            .collect();
        for thread in threads {
            let err = thread.join().unwrap();
            assert!(
                err.contains(
                    "`sum`: rank 1 called `sum` on `i32` where rank 0 called `sum` on `f32`"
                ),
                "{err}"
            );
        }
    }

    #[test]
    fn a_rank_that_goes_silent_is_taken_for_dead() {
        let port = free_port();
        let joins = job(2, port, Duration::from_secs(1));
        let hub = {
            let join = joins[0].clone();
            std::thread::spawn(move || {
                let (link, _) = Link::join(&join, "the CPU backend", || Ok(vec![])).unwrap();
                std::thread::sleep(Duration::from_millis(2500));
                link.failure()
            })
        };
        // Rank 1 as a process that hangs: it joins, then neither pings nor
        // closes its connection.
        let mut stream = loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(stream) => break stream,
                Err(_) => std::thread::sleep(Duration::from_millis(10)),
            }
        };
        let mut hello = Message::default();
        hello.raw(MAGIC).u64(1).u64(2).str("the CPU backend");
        send(&mut stream, HELLO, &hello.0).unwrap();
        assert_eq!(receive(&mut stream).unwrap().0, WELCOME);
        let failure = hub.join().unwrap().expect("rank 1 taken for dead");
        assert_eq!(failure.rank, 1);
        assert!(
            failure
                .problem
                .starts_with("stopped answering for 1s without a word"),
            "{}",
            failure.problem
        );
        drop(stream);
    }

    #[test]
    fn a_rank_that_leaves_or_never_comes_is_named() {
        let port = free_port();
        let mut joins = job(3, port, Duration::from_secs(2));
        let third = joins.pop().unwrap();
        let threads: Vec<_> = joins
            .into_iter()
            .map(|join| {
                std::thread::spawn(move || {
                    Link::join(&join, "the CPU backend", || Ok(vec![]))
                        .unwrap_err()
                        .to_string()
                })
            })
            .collect();
        let errors: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            errors[0].contains("ranks [2] did not arrive at tcp://127.0.0.1:"),
            "{}",
            errors[0]
        );
        assert!(
            errors[1].contains("rank 0 refused the job: ranks [2] did not arrive"),
            "{}",
            errors[1]
        );
        drop(third);

        let port = free_port();
        let threads: Vec<_> = job(3, port, Duration::from_secs(20))
            .into_iter()
            .map(|join| {
                std::thread::spawn(move || {
                    let (link, _) = Link::join(&join, "the CPU backend", || Ok(vec![])).unwrap();
                    all_gather(&link, "first", "u8", vec![1]).unwrap();
                    if join.rank() == 2 {
                        return String::new(); // leaves: drops its link
                    }
                    all_gather(&link, "second", "u8", vec![1])
                        .unwrap_err()
                        .to_string()
                })
            })
            .collect();
        let errors: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        for err in &errors[..2] {
            assert!(err.contains("`second`: rank 2 left the job"), "{err}");
        }

        // Rank 0 leaves first: the others' own waits go on, their next
        // collective is refused.
        let port = free_port();
        let threads: Vec<_> = job(2, port, Duration::from_secs(20))
            .into_iter()
            .map(|join| {
                std::thread::spawn(move || {
                    let (link, _) = Link::join(&join, "the CPU backend", || Ok(vec![])).unwrap();
                    all_gather(&link, "first", "u8", vec![1]).unwrap();
                    if join.rank() == 0 {
                        return String::new();
                    }
                    std::thread::sleep(Duration::from_millis(300));
                    assert!(link.failure().is_none(), "leaving is not a failure");
                    all_gather(&link, "second", "u8", vec![1])
                        .unwrap_err()
                        .to_string()
                })
            })
            .collect();
        let errors: Vec<String> = threads.into_iter().map(|t| t.join().unwrap()).collect();
        assert!(
            errors[1].contains("`second`: rank 0 left the job"),
            "{}",
            errors[1]
        );
    }
}
