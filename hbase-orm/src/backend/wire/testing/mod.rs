//! Test support shared by the test modules of both gateways (declared only under `cfg(test)`):
//! the reply fuzzers ([`fuzz`]) and the allocator that counts what a closure allocates
//! ([`counting`]).

pub(crate) mod counting;
pub(crate) mod fuzz;
