import AssetPackFormat
import AssetPacks
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The routes of the agent's local API (docs/AGENT.md), each a thin layer over the manager and
/// the scheduler. Runs on the connection's thread; async manager calls are waited for there.
struct AgentAPI: Sendable {
    let service: AgentServiceState

    func respond(to request: LocalHTTPRequest) -> LocalHTTPResponse {
        let segments = request.segments
        guard segments.first == "v1" else { return .error(404, "notFound", "no route \(request.path); the API lives under /v1/") }
        let route = Array(segments.dropFirst())
        do {
            switch (request.method, route.first ?? "") {
            case ("GET", "status") where route.count == 1:
                var report = try service.statusReport()
                report.fetchedBytes = service.manager.fetchedBytesNow
                return .json(report)
            case ("GET", "packs") where route.count == 1: return .json(try allPacks())
            case ("GET", "packs") where route.count == 2: return .json(try pack(route[1]))
            case ("DELETE", "packs") where route.count == 2: return try remove(route[1])
            case ("POST", "packs") where route.count == 3 && route[2] == "ensure": return try ensure(route[1], request)
            case ("POST", "packs") where route.count == 3 && route[2] == "cancel": return try cancel(route[1])
            case ("GET", "packs") where route.count == 3 && route[2] == "preservation-priority": return try preservationPriority(route[1])
            case ("PUT", "packs") where route.count == 3 && route[2] == "preservation-priority":
                return try setPreservationPriority(route[1], request)
            case ("POST", "update") where route.count == 1: return .json(try update(detached: request.flag("detach")))
            case ("POST", "installation-events") where route.count == 2: return try installationEvent(route[1], request)
            case ("GET", "installation-events") where route.count == 2: return try installationPlan(route[1])
            case ("GET", "namespace") where route.count == 1:
                let entries = try wait { try await service.manager.namespace() }
                return .json(entries.map { AgentNamespaceEntry(path: $0.path, packs: $0.packIDs) })
            case ("GET", "files") where route.count >= 2: return try file(route.dropFirst().joined(separator: "/"), request)
            case ("GET", "events") where route.count == 1:
                guard let subscription = service.hub.subscribe(packID: request.query["pack"]) else { throw AgentRequestError.stopping }
                return LocalHTTPResponse(status: 200, contentType: "text/event-stream", body: .stream(subscription), headers: [("Cache-Control", "no-store")])
            case (_, "status"), (_, "packs"), (_, "update"), (_, "installation-events"), (_, "namespace"), (_, "files"), (_, "events"):
                return .error(405, "methodNotAllowed", "\(request.method) \(request.path) is not a route of this API")
            default:
                return .error(404, "notFound", "no route \(request.method) \(request.path)")
            }
        } catch {
            return Self.response(for: error)
        }
    }

    private func allPacks() throws -> [AgentPackDescription] {
        let manager = service.manager
        let records = try service.queue.records()
        return try wait {
            var out: [AgentPackDescription] = []
            for pack in try await manager.catalogPacks.sorted(by: { $0.id < $1.id }) {
                let record = records.first { $0.id == pack.id }
                out.append(AgentPackDescription(pack, status: try await manager.status(relativeTo: pack), request: record?.state, error: record?.error))
            }
            return out
        }
    }

    private func pack(_ id: String) throws -> AgentPackDescription {
        let manager = service.manager
        let record = try service.queue.record(id)
        return try wait {
            let installed = try await manager.installedAssetPack(withID: id)
            do {
                let pack = try await manager.catalogPack(withID: id)
                var description = AgentPackDescription(pack, status: try await manager.status(relativeTo: pack), request: record?.state, error: record?.error,
                                                       installedVersion: installed?.version)
                description.sources = try await manager.sources(ofAssetPackWithID: id)
                return description
            } catch AssetPackManagerError.assetPackNotFound where installed != nil {
                // Installed, and dropped from the catalog: obsolete.
                return AgentPackDescription(installed!, status: await manager.localStatus(ofAssetPackWithID: id), request: record?.state,
                                            error: record?.error, installedVersion: installed!.version)
            }
        }
    }

    /// The packs the install step for the event would queue, queuing nothing.
    private func installationPlan(_ name: String) throws -> LocalHTTPResponse {
        guard let event = InstallationEventType(rawValue: name) else {
            return .error(404, "notFound", "no installation event \"\(name)\" (firstInstallation or subsequentUpdate)")
        }
        let manager = service.manager
        let plan = try wait { try await manager.installationPlan(for: event) }
        return .json(AgentInstallationPlan(essential: plan.essential.map(\.id), prefetch: plan.prefetch.map(\.id)))
    }

    private func preservationPriority(_ id: String) throws -> LocalHTTPResponse {
        let manager = service.manager
        let priority = try wait { try await manager.preservationPriority(ofAssetPackWithID: id) }
        return .json(AgentPreservationPriority(id: id, preservationPriority: priority))
    }

    /// `{"preservationPriority": 0.3}` (0…1) for an installed pack.
    private func setPreservationPriority(_ id: String, _ request: LocalHTTPRequest) throws -> LocalHTTPResponse {
        struct Body: Decodable { var preservationPriority: Double }
        guard let priority = (try? JSONDecoder().decode(Body.self, from: Data(request.body)))?.preservationPriority else {
            return .error(400, "malformedRequest", "the body must be a JSON object such as {\"preservationPriority\": 0.3}")
        }
        let manager = service.manager
        try wait { try await manager.setPreservationPriority(priority, forAssetPackWithID: id) }
        return .json(AgentPreservationPriority(id: id, preservationPriority: priority))
    }

    private func ensure(_ id: String, _ request: LocalHTTPRequest) throws -> LocalHTTPResponse {
        var detach = request.flag("detach"), latest = request.flag("requireLatestVersion")
        if !request.body.isEmpty {
            guard let object = try? JSONSerialization.jsonObject(with: Data(request.body)) as? [String: Any] else {
                return .error(400, "malformedRequest", "the body must be a JSON object such as {\"detach\": true, \"requireLatestVersion\": false}")
            }
            for (key, value) in object {
                guard let flag = value as? Bool, key == "detach" || key == "requireLatestVersion" else {
                    return .error(400, "malformedRequest", "unknown or non-boolean field \"\(key)\" (detach and requireLatestVersion are booleans)")
                }
                if key == "detach" { detach = detach || flag } else { latest = latest || flag }
            }
        }
        if let problem = AssetPackID.problem(with: id) { return .error(400, "malformedRequest", "\"\(id)\" is not an asset pack ID: it \(problem)") }
        // On disk before it is acknowledged.
        let outcome = try service.scheduler.ensure(id, requireLatestVersion: latest, priority: detach ? .background : .waitedFor)
        if detach { return .json(AgentAcceptance(accepted: id), status: 202) }
        try outcome.wait().get()
        return .json(try pack(id))
    }

    /// The install step run by the agent: every essential and prefetch pack of the event is
    /// queued (essential ones first); waits for the essential ones unless detached.
    private func installationEvent(_ name: String, _ request: LocalHTTPRequest) throws -> LocalHTTPResponse {
        guard let event = InstallationEventType(rawValue: name) else {
            return .error(404, "notFound", "no installation event \"\(name)\" (firstInstallation or subsequentUpdate)")
        }
        let manager = service.manager
        let plan = try wait { try await manager.installationPlan(for: event) }
        let essential = try plan.essential.map { try service.scheduler.ensure($0.id, requireLatestVersion: true, priority: .essential, background: true) }
        for p in plan.prefetch { _ = try service.scheduler.ensure(p.id, requireLatestVersion: true, priority: .background, background: true) }
        let reply = AgentInstallationPlan(essential: plan.essential.map(\.id), prefetch: plan.prefetch.map(\.id))
        if request.flag("detach") { return .json(reply, status: 202) }
        for outcome in essential { try outcome.wait().get() }
        return .json(reply)
    }

    private func cancel(_ id: String) throws -> LocalHTTPResponse {
        guard try service.scheduler.cancel(id) else { return .error(404, "noRequest", "the agent holds no request for \"\(id)\"") }
        return .json(try service.queue.record(id) ?? AgentRequestRecord(id: id, state: "paused", requireLatestVersion: false))
    }

    private func remove(_ id: String) throws -> LocalHTTPResponse {
        _ = try service.scheduler.cancel(id, forget: true)
        let manager = service.manager
        try wait { try await manager.remove(assetPackWithID: id) }
        return .json(["removed": id])
    }

    /// `detached`: returns once the updates have started (Apple's `checkForUpdates()`); otherwise
    /// once they are installed.
    private func update(detached: Bool) throws -> AgentUpdateResult {
        let manager = service.manager
        return try wait {
            if detached {
                let (updating, removed) = try await manager.checkForUpdates()
                var described: [AgentPackDescription] = []
                for id in updating.sorted() {
                    let p = try await manager.catalogPack(withID: id)
                    described.append(AgentPackDescription(p, status: try await manager.status(relativeTo: p)))
                }
                return AgentUpdateResult(updated: described, removed: removed.sorted())
            }
            let (updated, removed) = try await manager.installUpdates()
            var described: [AgentPackDescription] = []
            for p in updated { described.append(AgentPackDescription(p, status: try await manager.status(relativeTo: p))) }
            return AgentUpdateResult(updated: described, removed: removed)
        }
    }

    private func file(_ path: String, _ request: LocalHTTPRequest) throws -> LocalHTTPResponse {
        let manager = service.manager, pack = request.query["pack"], language = request.query["language"]
        if request.flag("progressive") {
            // Fetched ahead of the download the agent runs, on a connection of its own; a
            // caller waits, so the pack's transfers are foreground work meanwhile (--max-rate).
            return try service.scheduler.whileReading(pack) { try progressiveFile(path, request) }
        }
        if request.flag("location") {
            // `language`: only the packs localized for it (a manager's `asLocalizedFor:` reads).
            let url = try language.map { try manager.url(for: FilePath(path), asLocalizedFor: Locale.Language(identifier: $0)) }
                ?? manager.url(for: FilePath(path), searchingInAssetPackWithID: pack)
            return .json(AgentFileLocation(path: url.path))
        }
        let fd = try manager.descriptor(for: FilePath(path), searchingInAssetPackWithID: pack).rawValue
        return Self.fileResponse(fd, path: path)
    }

    /// `GET /v1/files/PATH?progressive=1[&range=FIRST-LAST][&location=1]`.
    private func progressiveFile(_ path: String, _ request: LocalHTTPRequest) throws -> LocalHTTPResponse {
        let manager = service.manager, pack = request.query["pack"]
        let range: Range<UInt64>?
        switch Self.byteRange(request.query["range"]) {
        case .success(let r): range = r
        case .failure(let why): return .error(400, "malformedRequest", why.message)
        }
        if request.flag("location") {
            return .json(AgentFileLocation(path: try wait { try await manager.url(for: FilePath(path), searchingInAssetPackWithID: pack, access: .progressive) }.path))
        }
        if let range {
            let bytes = try wait { try await manager.contents(at: FilePath(path), searchingInAssetPackWithID: pack, access: .progressive(range: range)) }
            return LocalHTTPResponse(status: 200, contentType: "application/octet-stream", body: .bytes([UInt8](bytes)))
        }
        let fd = try wait { try await manager.descriptor(for: FilePath(path), searchingInAssetPackWithID: pack, access: .progressive) }.rawValue
        return Self.fileResponse(fd, path: path)
    }

    /// `range=FIRST-LAST` (inclusive; `FIRST-` to the end) as file offsets; nil when absent.
    private static func byteRange(_ text: String?) -> Result<Range<UInt64>?, RangeProblem> {
        guard let text else { return .success(nil) }
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, let first = UInt64(parts[0]) else { return .failure(RangeProblem(message: "range=\(text): expected FIRST-LAST (bytes, inclusive) or FIRST-")) }
        if parts[1].isEmpty { return .success(first..<UInt64.max) }
        guard let last = UInt64(parts[1]), last >= first, last < UInt64.max else { return .failure(RangeProblem(message: "range=\(text): LAST must be a number no less than FIRST")) }
        return .success(first..<last + 1)
    }

    private struct RangeProblem: Error { var message: String }

    /// A 200 whose body is the open file `fd` (closed once sent).
    private static func fileResponse(_ fd: Int32, path: String) -> LocalHTTPResponse {
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            close(fd)
            return .error(500, "storage", "cannot read \(path): \(String(cString: strerror(errno)))")
        }
        return LocalHTTPResponse(status: 200, contentType: "application/octet-stream", body: .file(descriptor: fd, length: UInt64(st.st_size)))
    }

    /// Runs async work and blocks this (the connection's) thread until it is done — or until the
    /// agent stops: then the work is cancelled and this returns at once, without waiting for
    /// the work to wind down (a stop must not depend on Swift's thread pool being free).
    private func wait<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) throws -> T {
        let box = ResultBox<T>()
        let task = Task {
            do { box.complete(.success(try await work())) } catch { box.complete(.failure(error)) }
        }
        let token = service.stopSignal.register {
            task.cancel()
            box.complete(.failure(AgentRequestError.stopping))
        }
        defer { service.stopSignal.unregister(token) }
        return try box.wait().get()
    }

    /// The status and kind an error answers with.
    static func response(for error: any Error) -> LocalHTTPResponse {
        let message = "\(error)"
        switch error {
        case let e as AssetPackManagerError:
            // The error's own values go along, for a manager working through the agent.
            let (status, body) = AgentErrorBody.reply(for: e)
            return .json(body, status: status)
        case let e as AgentRequestError:
            switch e {
            case .paused: return .error(409, "paused", message)
            case .stopping: return .error(503, "stopping", message)
            case .declined(let id, _):
                var body = AgentErrorBody(error: message, kind: "downloadDeclined")
                body.assetPackID = id
                return .json(body, status: 409)
            }
        case is AgentServiceError: return .error(500, "queue", message)
        default: return .error(500, "internal", message)
        }
    }
}

/// The first result handed to it, for a thread that blocks until there is one.
private final class ResultBox<T>: @unchecked Sendable {
    private let condition = NSCondition()
    private var result: Result<T, any Error>?

    func complete(_ value: Result<T, any Error>) {
        condition.withLock {
            if result == nil { result = value }
            condition.broadcast()
        }
    }

    func wait() -> Result<T, any Error> {
        condition.withLock {
            while result == nil { condition.wait() }
            return result!
        }
    }
}
