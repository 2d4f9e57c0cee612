//! Where a kernel thread panicked. A panic's payload holds its message but
//! not its location, which only the process's panic hook sees; while the
//! CPU backend runs a block, a hook installed once per process records the
//! location (and keeps the default hook from printing what the launch
//! reports anyway). Panics outside a CPU launch go to the hook that was
//! installed before.

use crate::backend::cpu::diagnostics::PanicLocation;
use std::cell::{Cell, RefCell};
use std::sync::Once;

thread_local! {
    static CAPTURING: Cell<bool> = const { Cell::new(false) };
    static LAST: RefCell<Option<PanicLocation>> = const { RefCell::new(None) };
}

/// Records panic locations on this OS thread until dropped.
pub(crate) struct Capture {
    was: bool,
}

impl Capture {
    /// Starts recording (installing the hook on first use).
    pub(crate) fn start() -> Capture {
        static HOOK: Once = Once::new();
        HOOK.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                if CAPTURING.with(Cell::get) {
                    let location = info.location().map(|l| PanicLocation {
                        file: l.file().to_string(),
                        line: l.line(),
                        column: l.column(),
                    });
                    LAST.with(|last| *last.borrow_mut() = location);
                } else {
                    previous(info)
                }
            }));
        });
        Capture {
            was: CAPTURING.with(|c| c.replace(true)),
        }
    }

    /// The location of the last panic recorded, taken.
    pub(crate) fn take(&self) -> Option<PanicLocation> {
        LAST.with(|last| last.borrow_mut().take())
    }
}

impl Drop for Capture {
    fn drop(&mut self) {
        CAPTURING.with(|c| c.set(self.was));
    }
}
