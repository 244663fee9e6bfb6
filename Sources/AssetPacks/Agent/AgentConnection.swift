import AssetPackFormat
import AssetPackTransport
import Foundation

/// A client of a running agent (`assetpack agent`), over its Unix socket with libcurl: the same
/// calls as `AssetPackManager`, carried out by the agent, which owns the downloads. A download
/// asked for here goes on when this process ends; `cancel` pauses it.
///
/// ```swift
/// let agent = try AgentConnection(root: "/var/lib/game/packs")
/// try await agent.ensureLocalAvailability(ofAssetPackWithID: "World2", detached: true)
/// for await update in agent.statusUpdates { print(update) }
/// ```
public final class AgentConnection: Sendable {
    /// The agent's Unix socket.
    public let socketPath: String
    private let transport: CurlTransport
    /// Whether the agent's error replies are thrown as the `AssetPackManagerError` they stand
    /// for (a manager working through the agent) rather than as `AgentError.remote`.
    private let throwsManagerErrors: Bool
    private static let base = "http://agent/v1/"

    /// The agent's socket for a storage root when it was started without `--socket`.
    public static func socketPath(forRoot root: String) -> String { StorageLayout(root: root).agentSocket }

    /// A client of the agent of the storage root `root`, on its default socket (`ROOT/agent.sock`).
    public convenience init(root: String) throws {
        try self.init(socketPath: Self.socketPath(forRoot: root))
    }

    /// A client of the agent listening on `socketPath`. Nothing is sent until the first call.
    public convenience init(socketPath: String) throws {
        try self.init(socketPath: socketPath, throwsManagerErrors: false)
    }

    init(socketPath: String, throwsManagerErrors: Bool) throws {
        self.socketPath = socketPath
        self.throwsManagerErrors = throwsManagerErrors
        transport = try CurlTransport(userAgent: "AssetPacks-agent-client/1", unixSocketPath: socketPath)
    }

    /// Whether an agent answers on the socket now, asked without leaving the calling thread
    /// (for `AssetPackManager`'s synchronous `init`).
    func answersNow() -> Bool {
        let request = HTTPRequest(url: Self.base + "status", connectTimeout: .seconds(2), lowSpeedLimit: .init(bytesPerSecond: 1, duration: .seconds(5)))
        return (try? transport.send(request))?.isSuccess == true
    }

    /// Whether an agent answers on the socket now.
    public func isReachable() async -> Bool {
        (try? await agentStatus()) != nil
    }

    // MARK: Packs

    /// The agent itself: its queue, what downloads now, how many streams are open.
    public func agentStatus() async throws -> AgentStatusReport {
        try await decode(AgentStatusReport.self, from: send(.get, "status"))
    }

    /// Every pack of the catalog with its status on the agent's root.
    public func allAssetPacks() async throws -> [AgentPackDescription] {
        try await decode([AgentPackDescription].self, from: send(.get, "packs"))
    }

    /// One pack with its status (also a pack the catalog dropped that is still installed).
    public func assetPack(withID id: String) async throws -> AgentPackDescription {
        try await decode(AgentPackDescription.self, from: send(.get, "packs/" + Self.escape(id)))
    }

    /// Asks the agent to make the pack available. Waiting (the default) returns once it is
    /// installed and throws its failure; `detached` returns as soon as the agent has recorded the
    /// request in its queue (it survives this process and the agent's restarts).
    public func ensureLocalAvailability(ofAssetPackWithID id: String, requireLatestVersion: Bool = false, detached: Bool = false) async throws {
        var query: [String] = []
        if requireLatestVersion { query.append("requireLatestVersion=1") }
        if detached { query.append("detach=1") }
        _ = try await send(.post, "packs/\(Self.escape(id))/ensure" + (query.isEmpty ? "" : "?" + query.joined(separator: "&")),
                           longRunning: !detached)
    }

    /// Stops the agent's download of the pack (it pauses, keeping what it verified) and takes
    /// the request out of its queue until it is asked for again.
    public func cancel(assetPackWithID id: String) async throws {
        _ = try await send(.post, "packs/\(Self.escape(id))/cancel")
    }

    /// Removes the installed pack and its files (and any download of it).
    public func remove(assetPackWithID id: String) async throws {
        _ = try await send(.delete, "packs/" + Self.escape(id))
    }

    /// Has the agent run the install step for `event`: it queues every essential and prefetch
    /// pack of the event (durably, essential ones first) and, unless `detached`, returns once
    /// the essential ones are installed; the prefetch ones go on in the agent.
    @discardableResult
    public func handleInstallationEvent(_ event: InstallationEventType, detached: Bool = false) async throws -> AgentInstallationPlan {
        try await decode(AgentInstallationPlan.self, from: send(.post, "installation-events/" + event.rawValue + (detached ? "?detach=1" : ""),
                                                                longRunning: !detached))
    }

    /// Has the agent check the catalog, update installed packs by delta and remove obsolete ones.
    /// Waiting (the default) returns once the updates are installed; `detached` as soon as they
    /// have started (the packs being updated are in `updated`).
    public func checkForUpdates(detached: Bool = false) async throws -> AgentUpdateResult {
        try await decode(AgentUpdateResult.self, from: send(.post, "update" + (detached ? "?detach=1" : ""), longRunning: !detached))
    }

    /// The packs `handleInstallationEvent(event)` would queue, without queuing them (the
    /// agent's catalog and languages choose): `GET /v1/installation-events/EVENT`.
    public func installationPlan(for event: InstallationEventType) async throws -> AgentInstallationPlan {
        try await decode(AgentInstallationPlan.self, from: send(.get, "installation-events/" + event.rawValue))
    }

    /// Sets an installed pack's preservation priority (0…1) on the agent's root, for its
    /// storage budget (`AssetPackManager.setPreservationPriority(_:forAssetPackWithID:)`).
    public func setPreservationPriority(_ priority: Double, forAssetPackWithID id: String) async throws {
        guard priority.isFinite else { throw AssetPackManagerError.invalidPreservationPriority(priority, assetPackID: id) }
        let body = try JSONEncoder().encode(AgentPreservationPriority(id: id, preservationPriority: priority))
        _ = try await send(.put, "packs/\(Self.escape(id))/preservation-priority", body: Array(body))
    }

    /// An installed pack's preservation priority on the agent's root (0.5 unless set).
    public func preservationPriority(ofAssetPackWithID id: String) async throws -> Double {
        try await decode(AgentPreservationPriority.self, from: send(.get, "packs/\(Self.escape(id))/preservation-priority")).preservationPriority
    }

    // MARK: Namespace

    /// Every path of the merged namespace with the installed packs that hold it.

    public func namespace() async throws -> [AgentNamespaceEntry] {
        try await decode([AgentNamespaceEntry].self, from: send(.get, "namespace"))
    }

    /// The bytes of the file at `path` in the merged namespace.
    public func contents(at path: String, searchingInAssetPackWithID id: String? = nil) async throws -> Data {
        Data(try await send(.get, "files/" + Self.escapePath(path) + (id.map { "?pack=" + Self.escape($0) } ?? "")).body)
    }

    /// The file URL of `path` in the merged namespace (the agent runs as this user, so the file
    /// is readable here).
    public func url(for path: String, searchingInAssetPackWithID id: String? = nil) async throws -> URL {
        let query = "?location=1" + (id.map { "&pack=" + Self.escape($0) } ?? "")
        let location = try await decode(AgentFileLocation.self, from: send(.get, "files/" + Self.escapePath(path) + query))
        return URL(fileURLWithPath: location.path)
    }

    /// An open read-only descriptor for `path`; the caller closes it.
    public func descriptor(for path: String, searchingInAssetPackWithID id: String? = nil) async throws -> Int32 {
        let file = try await url(for: path, searchingInAssetPackWithID: id).path
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(file): \(String(cString: strerror(errno)))") }
        return fd
    }

    /// The query of a file request with `access` (`progressive=1`, `range=FIRST-LAST`, inclusive).
    static func accessQuery(_ access: AssetReadAccess) -> [String] {
        guard access.isProgressive else { return [] }
        guard let range = access.range else { return ["progressive=1"] }
        if range.isEmpty { return ["progressive=1", "range=\(range.lowerBound)-"] }
        return ["progressive=1", "range=\(range.lowerBound)-\(range.upperBound - 1)"]
    }

    private static func fileRequest(_ path: String, _ id: String?, _ extra: [String]) -> String {
        let query = extra + (id.map { ["pack=" + escape($0)] } ?? [])
        return "files/" + escapePath(path) + (query.isEmpty ? "" : "?" + query.joined(separator: "&"))
    }

    /// The bytes of `path` with a choice of access: with `.progressive`, the agent fetches the
    /// file (or the range's chunks) ahead of the download it runs.
    public func contents(at path: String, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> Data {
        Data(try await send(.get, Self.fileRequest(path, id, Self.accessQuery(access))).body)
    }

    /// The file URL of `path` with a choice of access (a range is ignored: a URL names a whole file).
    public func url(for path: String, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> URL {
        let extra = ["location=1"] + (access.isProgressive ? ["progressive=1"] : [])
        let location = try await decode(AgentFileLocation.self, from: send(.get, Self.fileRequest(path, id, extra)))
        return URL(fileURLWithPath: location.path)
    }

    /// An open read-only descriptor for `path` with a choice of access (the whole file: the
    /// agent places it and this opens it).
    public func descriptor(for path: String, searchingInAssetPackWithID id: String? = nil, access: AssetReadAccess) async throws -> Int32 {
        let file = try await url(for: path, searchingInAssetPackWithID: id, access: access).path
        let fd = open(file, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw AssetPackManagerError.storage("cannot open \(file): \(String(cString: strerror(errno)))") }
        return fd
    }

    // MARK: Events

    /// Every status update the agent sends from now on, for every pack (its event stream,
    /// `GET /v1/events`). Ends when the agent stops or the connection breaks.
    public var statusUpdates: AsyncStream<AssetPackManager.DownloadStatusUpdate> { updates(events(query: "")) }

    /// Updates for one pack; ends after its finished or failed update.
    public func statusUpdates(forAssetPackWithID id: String) -> AsyncStream<AssetPackManager.DownloadStatusUpdate> {
        updates(events(query: "?pack=" + Self.escape(id)))
    }

    /// The events as updates whose `Progress`'s cancellation pauses the download on the agent.
    private func updates(_ events: AsyncStream<DownloadEvent>) -> AsyncStream<AssetPackManager.DownloadStatusUpdate> {
        let (stream, continuation) = AsyncStream<AssetPackManager.DownloadStatusUpdate>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let task = Task {
            for await event in events { continuation.yield(event.update(pause: { [weak self] id in self?.pauseSoon(id) })) }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Pauses the agent's download of `id` (a `Progress` was cancelled); a pack that is not
    /// downloading any more is left alone.
    func pauseSoon(_ id: String) {
        Task { try? await cancel(assetPackWithID: id) }
    }

    /// `statusUpdates` (or one pack's), handed back once the agent has taken the subscription (its
    /// first bytes arrived): no update the agent sends after this returns is missed. When no
    /// agent answers, it returns at once with a stream that has ended; if the agent says nothing
    /// for 5 seconds, it returns then with the stream as it is.
    public func subscribedStatusUpdates(forAssetPackWithID id: String? = nil) async -> AsyncStream<AssetPackManager.DownloadStatusUpdate> {
        updates(await subscribedEvents(forAssetPackWithID: id))
    }

    /// `subscribedStatusUpdates` as the manager's broadcaster takes them.
    func subscribedEvents(forAssetPackWithID id: String? = nil) async -> AsyncStream<DownloadEvent> {
        let subscribed = OnceSignal()
        let stream = events(query: id.map { "?pack=" + Self.escape($0) } ?? "", subscribed: subscribed)
        DispatchQueue.global().asyncAfter(deadline: .now() + 5) { subscribed.fire() }
        await subscribed.wait()
        return stream
    }

    private func events(query: String, subscribed: OnceSignal? = nil) -> AsyncStream<DownloadEvent> {
        let (stream, continuation) = AsyncStream<DownloadEvent>.makeStream(bufferingPolicy: .bufferingNewest(4096))
        let flag = CancellationFlag()
        continuation.onTermination = { _ in flag.cancel() }
        let request = HTTPRequest(url: Self.base + "events" + query, connectTimeout: .seconds(5), lowSpeedLimit: nil)
        let transport = self.transport
        let thread = Thread {
            let parser = ServerSentEventParser()
            let body = HTTPBodyStream { bytes in
                subscribed?.fire()
                for data in parser.append(bytes) {
                    guard let event = try? Self.decoder().decode(AgentEvent.self, from: Data(data.utf8)), let update = event.update else { continue }
                    continuation.yield(update)
                    if !query.isEmpty, update.isTerminal { throw CancellationError() }
                }
            }
            _ = try? transport.send(request, to: .stream(body), cancellation: flag)
            subscribed?.fire()
            continuation.finish()
        }
        thread.start()
        return stream
    }

    // MARK: Requests

    private func send(_ method: HTTPRequest.Method, _ path: String, body: [UInt8]? = nil, longRunning: Bool = false) async throws -> HTTPResponse {
        let request = makeRequest(method, path, body: body, longRunning: longRunning)
        let response: HTTPResponse
        do {
            response = try await transport.response(for: request, to: .memory(limit: 1 << 30))
        } catch {
            throw failure(error)
        }
        return try checked(response)
    }

    /// `send` without leaving the calling thread (for the manager's nonisolated, synchronous
    /// calls, which Apple's API makes synchronous).
    func sendNow(_ method: HTTPRequest.Method, _ path: String) throws -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try transport.send(makeRequest(method, path, body: nil, longRunning: false), to: .memory(limit: 1 << 30))
        } catch {
            throw failure(error)
        }
        return try checked(response)
    }

    private func makeRequest(_ method: HTTPRequest.Method, _ path: String, body: [UInt8]?, longRunning: Bool) -> HTTPRequest {
        var request = HTTPRequest(method, url: Self.base + path, connectTimeout: .seconds(5),
                                  lowSpeedLimit: longRunning ? nil : .init(bytesPerSecond: 1, duration: .seconds(30)))
        if let body { request.body = .bytes(body) } else if method == .post { request.body = .bytes([]) }
        return request
    }

    /// What a transport failure to reach the agent is thrown as.
    private func failure(_ error: TransportError) -> any Error {
        if case .cancelled = error { return CancellationError() }
        if case .connection = error {
            let why = FileManager.default.fileExists(atPath: socketPath) ? "nothing accepts connections on it (a stale socket, or another user's)"
                                                                          : "the socket does not exist"
            return AgentError.unreachable(socketPath: socketPath, reason: why + "; is 'assetpack agent' running for this root?")
        }
        return AgentError.unreachable(socketPath: socketPath, reason: "\(error)")
    }

    /// The response when it is a success; the agent's error reply thrown otherwise.
    private func checked(_ response: HTTPResponse) throws -> HTTPResponse {
        guard response.isSuccess else {
            if let body = try? Self.decoder().decode(AgentErrorBody.self, from: Data(response.body)) {
                if throwsManagerErrors, let error = body.managerError { throw error }
                throw AgentError.remote(status: response.status, kind: body.kind, message: body.error)
            }
            throw AgentError.remote(status: response.status, kind: "http", message: String(decoding: response.body.prefix(500), as: UTF8.self))
        }
        return response
    }

    /// The agent's description of one pack, asked without leaving the calling thread.
    func assetPackNow(withID id: String) throws -> AgentPackDescription {
        try decode(AgentPackDescription.self, from: sendNow(.get, "packs/" + Self.escape(id)))
    }

    /// Every pack the agent's catalog lists, asked without leaving the calling thread.
    func allAssetPacksNow() throws -> [AgentPackDescription] {
        try decode([AgentPackDescription].self, from: sendNow(.get, "packs"))
    }

    /// Where the agent says `path` is, asked without leaving the calling thread; `language`
    /// limits the search to localized packs resolved for that language.
    func urlNow(for path: String, searchingInAssetPackWithID id: String?, language: String? = nil) throws -> URL {
        var query = "?location=1" + (id.map { "&pack=" + Self.escape($0) } ?? "")
        if let language { query += "&language=" + Self.escape(language) }
        let location = try decode(AgentFileLocation.self, from: sendNow(.get, "files/" + Self.escapePath(path) + query))
        return URL(fileURLWithPath: location.path)
    }

    private func decode<T: Decodable>(_ type: T.Type, from response: HTTPResponse) throws -> T {
        do { return try Self.decoder().decode(type, from: Data(response.body)) } catch {
            throw AgentError.malformedResponse("\(response.url): \(error)")
        }
    }

    /// The agent's JSON: dates in ISO 8601 (`nextAttempt`, a refused catalog's `expires`).
    private static func decoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }

    /// A pack ID as one path segment.
    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// A namespace path, its slashes kept.
    static func escapePath(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map { escape(String($0)) }.joined(separator: "/")
    }
}

/// Fires once; every `wait`, before or after, returns after that.
final class OnceSignal: @unchecked Sendable {
    private let lock = NSLock()
    private var fired = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func fire() {
        let waiting: [CheckedContinuation<Void, Never>] = lock.withLock {
            guard !fired else { return [] }
            fired = true
            defer { waiters = [] }
            return waiters
        }
        for waiter in waiting { waiter.resume() }
    }

    func wait() async {
        await withCheckedContinuation { (waiter: CheckedContinuation<Void, Never>) in
            let now: Bool = lock.withLock {
                if fired { return true }
                waiters.append(waiter)
                return false
            }
            if now { waiter.resume() }
        }
    }
}
