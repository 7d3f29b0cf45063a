//! Test support: the unit-test binary's global allocator, which can count what one closure
//! allocates on its own thread ([`measure`]).
//!
//! Outside [`measure`] it only forwards to [`System`], after one thread-local flag check. The
//! counters are plain `Cell`s in a `const`-initialised thread local (no destructor, no lazy
//! initialisation), so reading them never allocates and never re-enters the allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

/// What a measured closure allocated on its thread.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Usage {
    /// The largest single request, in bytes (an allocation, or the new size of a reallocation),
    /// counted when asked for, so a request that fails is counted too.
    pub(crate) largest: usize,
    /// The most bytes held at once by allocations made during the closure (memory allocated
    /// before it and freed during it does not lower this below zero).
    pub(crate) peak: usize,
    /// All bytes requested during the closure, added up.
    pub(crate) total: usize,
}

/// Per-thread counters.
struct Counters {
    /// Whether allocations on this thread are being counted.
    active: Cell<bool>,
    /// See [`Usage::largest`].
    largest: Cell<usize>,
    /// Bytes allocated minus bytes freed since counting started (negative when memory from
    /// before is freed).
    live: Cell<isize>,
    /// The highest `live` seen.
    peak: Cell<isize>,
    /// See [`Usage::total`].
    total: Cell<usize>,
}

thread_local! {
    static COUNTERS: Counters = const {
        Counters {
            active: Cell::new(false),
            largest: Cell::new(0),
            live: Cell::new(0),
            peak: Cell::new(0),
            total: Cell::new(0),
        }
    };
}

/// Converts a size to a signed change of `live` (sizes never exceed `isize::MAX`).
fn signed(size: usize) -> isize {
    isize::try_from(size).unwrap_or(isize::MAX)
}

/// Records a request for `size` bytes that will replace `old` bytes (0 for a new allocation).
fn note_request(size: usize) {
    let _ = COUNTERS.try_with(|c| {
        if c.active.get() {
            c.largest.set(c.largest.get().max(size));
            c.total.set(c.total.get().saturating_add(size));
        }
    });
}

/// Records that live memory changed by `delta` bytes.
fn note_live(delta: isize) {
    let _ = COUNTERS.try_with(|c| {
        if c.active.get() {
            let live = c.live.get().saturating_add(delta);
            c.live.set(live);
            c.peak.set(c.peak.get().max(live));
        }
    });
}

/// The allocator: [`System`], with counting.
struct Counting;

// SAFETY: every method forwards to `System` with the caller's arguments unchanged; the
// bookkeeping around it touches only thread-local `Cell`s and never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note_request(layout.size());
        // SAFETY: the caller upholds `GlobalAlloc::alloc`'s contract, passed on unchanged.
        let p = unsafe { System.alloc(layout) };
        if !p.is_null() {
            note_live(signed(layout.size()));
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note_request(layout.size());
        // SAFETY: as for `alloc`.
        let p = unsafe { System.alloc_zeroed(layout) };
        if !p.is_null() {
            note_live(signed(layout.size()));
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        note_live(-signed(layout.size()));
        // SAFETY: the caller upholds `GlobalAlloc::dealloc`'s contract, passed on unchanged.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note_request(new_size);
        // SAFETY: the caller upholds `GlobalAlloc::realloc`'s contract, passed on unchanged.
        let p = unsafe { System.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            note_live(signed(new_size) - signed(layout.size()));
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Stops counting when dropped, also when the measured closure panics.
struct Stop;

impl Drop for Stop {
    fn drop(&mut self) {
        COUNTERS.with(|c| c.active.set(false));
    }
}

/// Runs `f` and returns what it allocated on this thread (not on others). Not re-entrant.
pub(crate) fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
    COUNTERS.with(|c| {
        assert!(!c.active.get(), "measure is not re-entrant");
        c.largest.set(0);
        c.live.set(0);
        c.peak.set(0);
        c.total.set(0);
        c.active.set(true);
    });
    let stop = Stop;
    let out = f();
    drop(stop);
    let usage = COUNTERS.with(|c| Usage {
        largest: c.largest.get(),
        peak: usize::try_from(c.peak.get()).unwrap_or(0),
        total: c.total.get(),
    });
    (out, usage)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_the_largest_request_the_peak_and_the_total() {
        let ((), usage) = measure(|| {
            let a = vec![0u8; 1000];
            let b: Vec<u64> = Vec::with_capacity(500); // 4,000 bytes
            drop(a);
            let c = vec![1u8; 2000];
            std::hint::black_box((&b, &c));
        });
        assert_eq!(usage.largest, 4000);
        assert_eq!(usage.total, 7000);
        assert_eq!(usage.peak, 6000);
    }

    #[test]
    fn counts_reallocation_and_only_this_thread() {
        let before = vec![0u8; 10_000];
        let ((), usage) = measure(|| {
            let mut v: Vec<u8> = Vec::with_capacity(100);
            v.resize(5000, 0);
            drop(before);
            std::thread::scope(|s| {
                s.spawn(|| std::hint::black_box(vec![0u8; 1 << 20]));
            });
            std::hint::black_box(&v);
        });
        assert!(
            usage.largest >= 5000 && usage.largest < 1 << 20,
            "{usage:?}"
        );
        assert!(usage.peak >= 5000 && usage.peak < 1 << 20, "{usage:?}");
    }
}
