import Foundation

/// What a manager has learnt about its mirrors during its lifetime, and so the order they are
/// tried in: a mirror that served a catalog the client refused (bad signature, rolled back,
/// expired) goes behind every other for the rest of the session, and among the others the
/// ones that failed least (no answer, too slow, a chunk that did not verify) come first, in
/// the configured order on a tie. Nothing is forgotten until the manager goes.
final class MirrorHealth: @unchecked Sendable {
    private let lock = NSLock()
    private var failures: [Int]
    private var refusals: [Int: String]

    init(count: Int) {
        failures = Array(repeating: 0, count: count)
        refusals = [:]
    }

    /// Mirror `m` failed a request or served bytes that did not verify.
    func failed(_ m: Int) { lock.withLock { if failures.indices.contains(m) { failures[m] += 1 } } }

    /// Mirror `m` served a catalog the client refused, for this reason.
    func refuse(_ m: Int, why: String) { lock.withLock { refusals[m] = why } }

    /// Why mirror `m` was refused this session, if it was.
    func refusal(_ m: Int) -> String? { lock.withLock { refusals[m] } }

    /// Every mirror, best first: trusted ones by fewest failures, then the refused ones (still
    /// tried when every other mirror fails), rotated so that rank `first` leads among the
    /// trusted ones (a retry starts at the next mirror).
    func order(startingAt first: Int = 0) -> [Int] {
        lock.withLock {
            let all = Array(failures.indices)
            let trusted = all.filter { refusals[$0] == nil }.sorted { (failures[$0], $0) < (failures[$1], $1) }
            let refused = all.filter { refusals[$0] != nil }
            guard !trusted.isEmpty else { return refused }
            let k = ((first % trusted.count) + trusted.count) % trusted.count
            return Array(trusted[k...] + trusted[..<k]) + refused
        }
    }
}
