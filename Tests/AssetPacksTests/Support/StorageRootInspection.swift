@testable import AssetPacks
import Foundation

/// Looks into a storage root from outside the manager: the folders on disk and the store's rows.
struct StorageRoot {
    let path: String

    var layout: StorageLayout { StorageLayout(root: path) }
    func store() throws -> ClientStore { try ClientStore(path: layout.database) }

    /// Entries of `staging/` (downloads under way or left behind).
    var stagingEntries: [String] { ((try? FileManager.default.contentsOfDirectory(atPath: layout.staging)) ?? []).sorted() }

    /// Version folders of pack `id` under `packs/`.
    func installedVersions(_ id: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: layout.packs + "/" + id)) ?? []).sorted()
    }

    /// The installed pack's folder, as the store records it.
    func installedDirectory(_ id: String) throws -> String? {
        try store().installedPack(id).map { layout.absolute($0.directory) }
    }

    /// Bytes of `relative` inside pack `id`'s installed folder.
    func installedFile(_ id: String, _ relative: String) throws -> [UInt8]? {
        guard let dir = try installedDirectory(id) else { return nil }
        return FileManager.default.contents(atPath: dir + "/" + relative).map { [UInt8]($0) }
    }

    /// Total size of the files below `relative` (for "nothing left behind" checks).
    func bytesBelow(_ relative: String) -> UInt64 {
        guard let e = FileManager.default.enumerator(atPath: path + "/" + relative) else { return 0 }
        var total: UInt64 = 0
        for case let rel as String in e {
            if let size = (try? FileManager.default.attributesOfItem(atPath: path + "/" + relative + "/" + rel))?[.size] as? UInt64 { total += size }
        }
        return total
    }
}

/// Gathers status updates from a stream in the background until it ends or is stopped.
final class UpdateCollector: @unchecked Sendable {
    private let lock = NSLock()
    private var updates: [DownloadStatusUpdate] = []
    private var task: Task<Void, Never>?

    init(_ stream: AsyncStream<DownloadStatusUpdate>) {
        task = Task { [self] in
            for await u in stream { lock.withLock { updates.append(u) } }
        }
    }

    /// Waits until the stream has ended (a per-pack stream after finished or failed).
    func ended() async -> [DownloadStatusUpdate] {
        await task?.value
        return snapshot
    }

    /// Stops listening and returns what arrived.
    func stop() async -> [DownloadStatusUpdate] {
        task?.cancel()
        await task?.value
        return snapshot
    }

    var snapshot: [DownloadStatusUpdate] { lock.withLock { updates } }
}

extension DownloadStatusUpdate {
    /// began, paused, downloading, finished or failed.
    var kind: String {
        switch self {
        case .began: return "began"
        case .paused: return "paused"
        case .downloading: return "downloading"
        case .finished: return "finished"
        case .failed: return "failed"
        }
    }
}

/// Runs `body` and returns the AssetPackManagerError it throws; nil when it throws something
/// else or nothing (so that an expectation on the result fails).
func managerError(_ body: () async throws -> Void) async -> AssetPackManagerError? {
    do {
        try await body()
        return nil
    } catch let error as AssetPackManagerError {
        return error
    } catch {
        return nil
    }
}

/// A clock a test moves by hand (for `Configuration.now`): the real time plus an offset.
final class TestClock: @unchecked Sendable {
    private let lock = NSLock()
    private var offset: TimeInterval = 0

    func now() -> Date { lock.withLock { Date().addingTimeInterval(offset) } }
    func advance(by seconds: TimeInterval) { lock.withLock { offset += seconds } }
}

extension Result {
    /// Whether this is the failure a cancelled caller gets.
    var isCancellation: Bool { if case .failure(let e) = self { e is CancellationError } else { false } }
}
