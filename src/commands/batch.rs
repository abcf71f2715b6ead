//! A bounded, ordered parallel loop: items are worked on by several threads, and their results are
//! handed back one at a time in input order, with at most `window` of them in flight (claimed but
//! not yet handed back). A batch's memory therefore depends on the window, not on its size.

use std::collections::BTreeMap;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Condvar, Mutex};

struct State<T> {
    /// The next item a worker will claim.
    next: usize,
    /// Items handed back so far (all below this index).
    consumed: usize,
    ready: BTreeMap<usize, T>,
    /// The largest number of items in flight at once (what the tests assert on).
    peak: usize,
    panicked: bool,
}

/// Runs `work` on items `0..count` on `workers` threads and `consume` on each result in order,
/// on the calling thread. Returns the peak number of items in flight (never above `window`).
pub fn for_each_ordered<T: Send>(
    count: usize,
    workers: usize,
    window: usize,
    work: impl Fn(usize) -> T + Sync,
    mut consume: impl FnMut(usize, T),
) -> usize {
    let window = window.max(1);
    if count <= 1 || workers <= 1 {
        for i in 0..count {
            consume(i, work(i));
        }
        return count.min(1);
    }
    let state = Mutex::new(State {
        next: 0,
        consumed: 0,
        ready: BTreeMap::new(),
        peak: 0,
        panicked: false,
    });
    let changed = Condvar::new();
    let lock = || state.lock().unwrap_or_else(|e| e.into_inner());
    std::thread::scope(|scope| {
        for _ in 0..workers.min(count) {
            scope.spawn(|| {
                while let Some(i) = claim(&state, &changed, count, window) {
                    let result = catch_unwind(AssertUnwindSafe(|| work(i)));
                    let mut s = lock();
                    match result {
                        Ok(value) => {
                            s.ready.insert(i, value);
                        }
                        Err(payload) => {
                            s.panicked = true;
                            changed.notify_all();
                            drop(s);
                            resume_unwind(payload);
                        }
                    }
                    changed.notify_all();
                }
            });
        }
        for i in 0..count {
            let mut s = lock();
            let value = loop {
                if let Some(v) = s.ready.remove(&i) {
                    break v;
                }
                if s.panicked {
                    return; // the scope re-raises the worker's panic
                }
                s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
            };
            s.consumed = i + 1;
            changed.notify_all();
            drop(s);
            consume(i, value);
        }
    });
    lock().peak
}

/// The next item for a worker, waiting while the window is full; `None` when all are claimed.
fn claim<T>(
    state: &Mutex<State<T>>,
    changed: &Condvar,
    count: usize,
    window: usize,
) -> Option<usize> {
    let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
    loop {
        if s.next >= count || s.panicked {
            return None;
        }
        if s.next < s.consumed + window {
            let i = s.next;
            s.next += 1;
            s.peak = s.peak.max(s.next - s.consumed);
            return Some(i);
        }
        s = changed.wait(s).unwrap_or_else(|e| e.into_inner());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn results_come_in_order_with_a_bounded_number_in_flight() {
        let worked = AtomicUsize::new(0);
        let mut seen = Vec::new();
        let peak = for_each_ordered(
            500,
            4,
            6,
            |i| {
                worked.fetch_add(1, Ordering::Relaxed);
                // Later items finish first, to make reordering necessary.
                std::thread::sleep(std::time::Duration::from_micros((i % 7) as u64 * 50));
                vec![i as u8; 1024]
            },
            |i, value| {
                assert_eq!(value[0], i as u8);
                seen.push(i);
                if i % 50 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(5)); // a slow consumer
                }
            },
        );
        assert_eq!(seen, (0..500).collect::<Vec<_>>());
        assert_eq!(worked.load(Ordering::Relaxed), 500);
        assert!(peak <= 6, "{peak} results in flight, the window is 6");
        assert!(peak >= 2, "work ran in parallel");
    }

    #[test]
    fn one_item_runs_inline() {
        let mut out = Vec::new();
        for_each_ordered(1, 8, 8, |i| i + 1, |_, v| out.push(v));
        assert_eq!(out, vec![1]);
    }
}
