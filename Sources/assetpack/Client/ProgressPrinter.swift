import AssetPackFormat
import AssetPacks
import Foundation

/// Prints status updates while a command runs: a progress bar on a terminal, JSON lines otherwise.
/// The updates come from the command's own manager or from the agent's event stream; both print
/// alike.
final class ProgressPrinter: @unchecked Sendable {
    private let json: Bool
    private let terminal = isatty(STDERR_FILENO) == 1
    private var task: Task<Void, Never>?
    private let only: Set<String>?
    private let lock = NSLock()
    /// Packs that began and have not finished, failed or paused yet.
    private var open: Set<String> = []
    private let shown = DispatchSemaphore(value: 0)

    convenience init(manager: AssetPackManager, json: Bool) {
        self.init(updates: manager.statusUpdates, json: json)
    }

    /// Prints `updates`; with `only`, the updates of those packs alone (the agent's stream carries
    /// every download of the root, whoever asked for it).
    init(updates: AsyncStream<DownloadStatusUpdate>, json: Bool, only: Set<String>? = nil) {
        self.json = json
        self.only = only
        task = Task { [self] in
            for await update in updates where only?.contains(update.assetPack.id) ?? true {
                show(update)
                lock.withLock {
                    switch update {
                    case .began(let p), .downloading(let p, _): open.insert(p.id)
                    case .finished(let p), .failed(let p, _), .paused(let p): open.remove(p.id)
                    }
                }
                shown.signal()
            }
        }
    }

    /// Waits (at most `limit`) until every pack that began has finished, failed or paused: the
    /// agent's events travel apart from its answers and may arrive a moment after them.
    func settle(within limit: Duration = .seconds(5)) {
        let deadline = ContinuousClock.now + limit
        while lock.withLock({ !open.isEmpty }), ContinuousClock.now < deadline {
            _ = shown.wait(timeout: .now() + .milliseconds(100))
        }
    }

    /// Stops listening once every update sent so far is shown (a cancelled stream still hands
    /// out what it buffered), so that the last lines are not lost when the command exits.
    func stop() {
        guard let task else { return }
        self.task = nil
        task.cancel()
        let done = DispatchSemaphore(value: 0)
        Task { await task.value; done.signal() }
        done.wait()
    }

    /// The last JSON line of a command that downloads: what it fetched from the network, and
    /// where the bytes of each pack it installed came from.
    func finish(_ manager: AssetPackManager, _ fields: [String: any Sendable] = [:]) {
        let sources = (try? runBlocking { await manager.sourcesOfInstalls() }) ?? []
        finish(fetchedBytes: (try? runBlocking { await manager.fetchedBytes }) ?? 0, fields, sources: sources)
    }

    /// The last JSON line, with the bytes fetched given (through an agent: what it fetched
    /// meanwhile); on a terminal, a line per pack saying where its bytes came from.
    func finish(fetchedBytes: UInt64, _ fields: [String: any Sendable] = [:], sources: [AssetPackSources] = []) {
        stop()
        guard json || !terminal else {
            for s in sources { printError(SourcesReport.text(s)) }
            return
        }
        var line: [String: Any] = fields
        line["event"] = "done"
        line["fetchedBytes"] = fetchedBytes
        line["savedBytes"] = sources.reduce(UInt64(0)) { $0 + $1.savedBytes }
        line["sources"] = SourcesReport.json(sources)
        let data = (try? JSONSerialization.data(withJSONObject: line, options: [.sortedKeys])) ?? Data()
        print(String(decoding: data, as: UTF8.self))
        fflush(nil)
    }

    private func show(_ update: DownloadStatusUpdate) {
        if json || !terminal {
            print(jsonLine(update))
            fflush(nil)
            return
        }
        switch update {
        case .began(let p): printError("downloading \(p.id) (\(ByteCount.format(UInt64(p.downloadSize))))")
        case .downloading(let p, let progress):
            let width = 30, filled = Int(progress.fractionCompleted * Double(width))
            let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
            FileHandle.standardError.write(Data("\r  \(p.id) [\(bar)] \(Int(progress.fractionCompleted * 100))% ".utf8))
        case .finished(let p): printError("\r  \(p.id) installed (version \(p.version))" + String(repeating: " ", count: 30))
        case .failed(let p, let error): printError("\r  \(p.id) failed: \(error)")
        case .paused(let p): printError("\r  \(p.id) paused")
        }
    }

    private func jsonLine(_ update: DownloadStatusUpdate) -> String {
        var fields: [String: Any] = ["assetPackID": update.assetPack.id, "version": update.assetPack.version]
        switch update {
        case .began: fields["event"] = "began"
        case .paused: fields["event"] = "paused"
        case .downloading(_, let p):
            fields["event"] = "downloading"; fields["completed"] = p.completedUnitCount; fields["total"] = p.totalUnitCount
        case .finished: fields["event"] = "finished"
        case .failed(_, let error): fields["event"] = "failed"; fields["error"] = "\(error)"
        }
        let data = (try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
