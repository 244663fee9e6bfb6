import Foundation

/// The bytes of one install run, added up by source as chunks arrive (any thread): the
/// figures of `AssetPackSources`.
final class SourceCounters: @unchecked Sendable {
    private struct Key: Hashable {
        var kind: AssetPackSources.Kind
        var location: String?
    }

    private let lock = NSLock()
    private var counts: [Key: (bytes: UInt64, saved: UInt64)] = [:]
    private var demotions: [Key: String] = [:]

    func add(_ kind: AssetPackSources.Kind, _ location: String?, bytes: UInt64, saved: UInt64 = 0) {
        guard bytes > 0 || saved > 0 else { return }
        lock.withLock {
            let key = Key(kind: kind, location: location)
            let old = counts[key] ?? (0, 0)
            counts[key] = (old.bytes + bytes, old.saved + saved)
        }
    }

    /// The source at `location` was demoted (why: `reason`); it gets an entry even with no bytes.
    func demoted(_ kind: AssetPackSources.Kind, _ location: String, reason: String) {
        lock.withLock {
            let key = Key(kind: kind, location: location)
            if counts[key] == nil { counts[key] = (0, 0) }
            if demotions[key] == nil { demotions[key] = reason }
        }
    }

    /// The figures so far, for pack `id` at `version`.
    func snapshot(id: String, version: Int) -> AssetPackSources {
        let entries = lock.withLock {
            counts.map {
                AssetPackSources.Entry(kind: $0.key.kind, location: $0.key.location, bytes: $0.value.bytes, savedBytes: $0.value.saved,
                                       demotion: demotions[$0.key])
            }
        }
        return AssetPackSources(assetPackID: id, version: version, entries: entries.sorted {
            ($0.kind, $0.location ?? "") < ($1.kind, $1.location ?? "")
        })
    }
}
