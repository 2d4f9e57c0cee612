//! [`Join`]: where this process stands in a job of one process a device
//! (its rank, the number of ranks, the GPU it owns) and how the processes
//! find each other ([`Rendezvous`]), from arguments or from the variables
//! a launcher sets.

use crate::Error;
use std::path::PathBuf;
use std::time::Duration;

/// How the processes of a job find each other: rank 0 listens, the others
/// connect to it.
///
/// Through the rendezvous rank 0 shares NCCL's unique id (GPUs), the
/// CPU backend's ranks exchange their data, every collective call is
/// checked to be the same call on every rank, and a rank that fails is
/// reported to the others.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rendezvous {
    /// Rank 0 listens at this address (`host:port`, e.g. `node0:29500` or
    /// `127.0.0.1:29500` for processes of one machine); the others
    /// connect to it, retrying until rank 0 is up.
    Tcp(String),
    /// Rank 0 listens on a free port of every interface and writes where
    /// into this file (its host name and `127.0.0.1`, with the port); the
    /// others read it, retrying until it appears. The file must be
    /// visible to every rank (one machine, or a shared file system) and
    /// new for each job: a file left by an earlier job sends the ranks to
    /// a port nobody listens on until rank 0 replaces it.
    File(PathBuf),
}

impl Rendezvous {
    /// [`Rendezvous::Tcp`] at `address` (`host:port`).
    pub fn tcp(address: impl Into<String>) -> Rendezvous {
        Rendezvous::Tcp(address.into())
    }

    /// [`Rendezvous::File`] at `path`.
    pub fn file(path: impl Into<PathBuf>) -> Rendezvous {
        Rendezvous::File(path.into())
    }
}

impl std::fmt::Display for Rendezvous {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Rendezvous::Tcp(address) => write!(f, "tcp://{address}"),
            Rendezvous::File(path) => write!(f, "file://{}", path.display()),
        }
    }
}

/// This process's place in a job of one process a device: its rank, the
/// number of ranks, the rendezvous, the GPU it owns and how long it waits
/// for the others. [`Devices::join`](super::Devices::join) (and its GPU
/// and CPU forms) joins the job with it.
///
/// ```
/// use coop_host::multi::{Join, Rendezvous};
/// use std::time::Duration;
///
/// let join = Join::new(1, 4, Rendezvous::tcp("127.0.0.1:29500"))?
///     .with_timeout(Duration::from_secs(30));
/// assert_eq!((join.rank(), join.world(), join.local_rank()), (1, 4, 1));
/// assert!(Join::new(4, 4, Rendezvous::tcp("127.0.0.1:29500")).is_err()); // ranks are 0..4
/// # Ok::<(), coop_host::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Join {
    rank: usize,
    world: usize,
    local_rank: usize,
    rendezvous: Rendezvous,
    timeout: Duration,
}

/// How long a rank waits for the others, at the rendezvous and in each
/// collective call, unless told otherwise.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(300);

/// Launchers' variables, in the order they are read: coop's own, then
/// torchrun's, Open MPI's, MPICH's (and Intel MPI's), Slurm's.
const RANK_VARS: [&str; 5] = [
    "COOP_RANK",
    "RANK",
    "OMPI_COMM_WORLD_RANK",
    "PMI_RANK",
    "SLURM_PROCID",
];
const WORLD_VARS: [&str; 5] = [
    "COOP_WORLD_SIZE",
    "WORLD_SIZE",
    "OMPI_COMM_WORLD_SIZE",
    "PMI_SIZE",
    "SLURM_NTASKS",
];
const LOCAL_RANK_VARS: [&str; 4] = [
    "COOP_LOCAL_RANK",
    "LOCAL_RANK",
    "OMPI_COMM_WORLD_LOCAL_RANK",
    "SLURM_LOCALID",
];

impl Join {
    /// Rank `rank` of `world` ranks, meeting at `rendezvous`; the GPU it
    /// owns is `rank` unless set by [`with_local_rank`](Self::with_local_rank),
    /// and it waits 300 s for the others unless set by
    /// [`with_timeout`](Self::with_timeout).
    ///
    /// Fails with [`Error::Join`] when `world` is 0 or `rank` is not below
    /// it.
    pub fn new(rank: usize, world: usize, rendezvous: Rendezvous) -> Result<Join, Error> {
        if world == 0 || rank >= world {
            return Err(Error::Join {
                rank: Some(rank),
                world: Some(world),
                problem: format!(
                    "the ranks of a job of {world} process(es) are 0 to {}; give a rank below \
                     the world size, which is at least 1",
                    world.saturating_sub(1)
                ),
            });
        }
        Ok(Join {
            rank,
            world,
            local_rank: rank,
            rendezvous,
            timeout: DEFAULT_TIMEOUT,
        })
    }

    /// This process's place as a launcher sets it in the environment:
    ///
    /// - the rank from `COOP_RANK`, `RANK` (torchrun), `OMPI_COMM_WORLD_RANK`
    ///   (Open MPI's `mpirun`), `PMI_RANK` (MPICH, Intel MPI) or
    ///   `SLURM_PROCID` (`srun`), the first set;
    /// - the world size from `COOP_WORLD_SIZE`, `WORLD_SIZE`,
    ///   `OMPI_COMM_WORLD_SIZE`, `PMI_SIZE` or `SLURM_NTASKS`;
    /// - the GPU it owns (its rank on its machine) from `COOP_LOCAL_RANK`,
    ///   `LOCAL_RANK`, `OMPI_COMM_WORLD_LOCAL_RANK` or `SLURM_LOCALID`,
    ///   else the rank;
    /// - the rendezvous from `COOP_RENDEZVOUS` (`tcp://host:port`,
    ///   `host:port` or `file:///path`), else torchrun's `MASTER_ADDR` and
    ///   `MASTER_PORT`;
    /// - the timeout from `COOP_TIMEOUT_S` (seconds), else 300 s.
    ///
    /// Fails with [`Error::Join`] naming the variable that is missing or
    /// not a number.
    pub fn from_env() -> Result<Join, Error> {
        Join::from_vars(|name| std::env::var(name).ok())
    }

    /// [`from_env`](Self::from_env) over any source of variables.
    fn from_vars(var: impl Fn(&str) -> Option<String>) -> Result<Join, Error> {
        let number = |names: &[&str]| -> Result<Option<usize>, Error> {
            for name in names {
                if let Some(value) = var(name) {
                    return value.trim().parse().map(Some).map_err(|_| Error::Join {
                        rank: None,
                        world: None,
                        problem: format!("{name}={value:?} is not a whole number"),
                    });
                }
            }
            Ok(None)
        };
        let missing = |what: &str, names: &[&str]| Error::Join {
            rank: None,
            world: None,
            problem: format!(
                "no {what} in the environment: set one of {}, or start the processes with a \
                 launcher that does (torchrun, mpirun, srun)",
                names.join(", ")
            ),
        };
        let rank = number(&RANK_VARS)?.ok_or_else(|| missing("rank", &RANK_VARS))?;
        let world = number(&WORLD_VARS)?.ok_or_else(|| missing("world size", &WORLD_VARS))?;
        let rendezvous = match var("COOP_RENDEZVOUS") {
            Some(value) => parse_rendezvous(&value).ok_or_else(|| Error::Join {
                rank: Some(rank),
                world: Some(world),
                problem: format!(
                    "COOP_RENDEZVOUS={value:?} is neither tcp://host:port, host:port nor \
                     file:///path"
                ),
            })?,
            None => match (var("MASTER_ADDR"), var("MASTER_PORT")) {
                (Some(host), Some(port)) => Rendezvous::Tcp(format!("{host}:{port}")),
                _ => {
                    return Err(Error::Join {
                        rank: Some(rank),
                        world: Some(world),
                        problem: "no rendezvous in the environment: set COOP_RENDEZVOUS \
                                  (tcp://host:port of rank 0's machine, or file:///path on a \
                                  shared file system), or MASTER_ADDR and MASTER_PORT as \
                                  torchrun does"
                            .into(),
                    })
                }
            },
        };
        let mut join = Join::new(rank, world, rendezvous)?;
        if let Some(local) = number(&LOCAL_RANK_VARS)? {
            join.local_rank = local;
        }
        if let Some(seconds) = number(&["COOP_TIMEOUT_S"])? {
            join.timeout = Duration::from_secs(seconds as u64);
        }
        Ok(join)
    }

    /// The same place, owning GPU `local_rank` of its machine (by default
    /// the rank).
    pub fn with_local_rank(mut self, local_rank: usize) -> Join {
        self.local_rank = local_rank;
        self
    }

    /// The same place, waiting at most `timeout` for the other ranks at the
    /// rendezvous and in each collective call (by default 300 s). A rank
    /// that does not arrive in time is reported by rank, as
    /// [`Error::Rank`] (or [`Error::Join`] at the rendezvous).
    pub fn with_timeout(mut self, timeout: Duration) -> Join {
        self.timeout = timeout;
        self
    }

    /// This process's rank, 0 to `world() - 1`.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The number of ranks (processes) in the job.
    pub fn world(&self) -> usize {
        self.world
    }

    /// The ordinal of the GPU this process owns on its machine.
    pub fn local_rank(&self) -> usize {
        self.local_rank
    }

    /// How the ranks find each other.
    pub fn rendezvous(&self) -> &Rendezvous {
        &self.rendezvous
    }

    /// How long a rank waits for the others.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }
}

/// `tcp://host:port`, `host:port` or `file:///path`.
fn parse_rendezvous(value: &str) -> Option<Rendezvous> {
    let value = value.trim();
    if let Some(path) = value.strip_prefix("file://") {
        return (!path.is_empty()).then(|| Rendezvous::File(PathBuf::from(path)));
    }
    let address = value.strip_prefix("tcp://").unwrap_or(value);
    let (host, port) = address.rsplit_once(':')?;
    (!host.is_empty() && port.parse::<u16>().is_ok()).then(|| Rendezvous::Tcp(address.into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn from(vars: &[(&str, &str)]) -> Result<Join, Error> {
        let vars: HashMap<String, String> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Join::from_vars(|name| vars.get(name).cloned())
    }

    #[test]
    fn launchers_variables_give_the_place() {
        let torchrun = from(&[
            ("RANK", "3"),
            ("WORLD_SIZE", "8"),
            ("LOCAL_RANK", "1"),
            ("MASTER_ADDR", "node0"),
            ("MASTER_PORT", "29500"),
        ])
        .unwrap();
        assert_eq!(
            (torchrun.rank(), torchrun.world(), torchrun.local_rank()),
            (3, 8, 1)
        );
        assert_eq!(torchrun.rendezvous(), &Rendezvous::tcp("node0:29500"));
        let mpirun = from(&[
            ("OMPI_COMM_WORLD_RANK", "2"),
            ("OMPI_COMM_WORLD_SIZE", "4"),
            ("COOP_RENDEZVOUS", "file:///shared/job7"),
            ("COOP_TIMEOUT_S", "20"),
        ])
        .unwrap();
        assert_eq!(
            (mpirun.rank(), mpirun.world(), mpirun.local_rank()),
            (2, 4, 2)
        );
        assert_eq!(mpirun.rendezvous(), &Rendezvous::file("/shared/job7"));
        assert_eq!(mpirun.timeout(), Duration::from_secs(20));
        let srun = from(&[
            ("SLURM_PROCID", "0"),
            ("SLURM_NTASKS", "2"),
            ("COOP_RENDEZVOUS", "tcp://10.0.0.1:4000"),
        ])
        .unwrap();
        assert_eq!(srun.rendezvous(), &Rendezvous::tcp("10.0.0.1:4000"));
    }

    #[test]
    fn a_missing_or_bad_variable_is_named() {
        let err = from(&[("WORLD_SIZE", "2")]).unwrap_err().to_string();
        assert!(
            err.contains("no rank in the environment: set one of COOP_RANK, RANK"),
            "{err}"
        );
        let err = from(&[("RANK", "x1"), ("WORLD_SIZE", "2")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("RANK=\"x1\" is not a whole number"), "{err}");
        let err = from(&[("RANK", "0"), ("WORLD_SIZE", "2")])
            .unwrap_err()
            .to_string();
        assert!(err.contains("no rendezvous in the environment"), "{err}");
        let err = from(&[
            ("RANK", "2"),
            ("WORLD_SIZE", "2"),
            ("COOP_RENDEZVOUS", "h:1"),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("joining a job as rank 2 of 2: the ranks of a job of 2"),
            "{err}"
        );
        let err = from(&[
            ("RANK", "0"),
            ("WORLD_SIZE", "2"),
            ("COOP_RENDEZVOUS", "nohost"),
        ])
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("COOP_RENDEZVOUS=\"nohost\" is neither"),
            "{err}"
        );
    }
}
