#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Raises the process's soft limit on open descriptors to `wanted` (never lowers it, never past
/// the hard limit), so that a server allowed thousands of connections is not cut short by a
/// default soft limit of 1024 (256 on macOS). Returns the soft limit in force afterwards.
@discardableResult
func raiseOpenFileLimit(toAtLeast wanted: UInt64) -> UInt64 {
    #if canImport(Glibc)
    let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    let resource = RLIMIT_NOFILE
    #endif
    var limit = rlimit()
    guard getrlimit(resource, &limit) == 0 else { return 0 }
    let current = UInt64(limit.rlim_cur), hard = UInt64(limit.rlim_max)
    guard current < wanted else { return current }
    limit.rlim_cur = rlim_t(min(wanted, hard))
    return setrlimit(resource, &limit) == 0 ? UInt64(limit.rlim_cur) : current
}
