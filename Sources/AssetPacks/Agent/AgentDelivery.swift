import Foundation

/// How an `AssetPackManager` made with `Delivery.agent` reaches its agent: a connection whose
/// error replies come back as `AssetPackManagerError`, and one subscription to the agent's
/// status stream whose updates go out through the manager's own streams (so that they start,
/// end and filter exactly as an in-process manager's do).
final class AgentDelivery: Sendable {
    let connection: AgentConnection
    private let relay: AgentEventRelay

    init(socketPath: String, broadcaster: StatusBroadcaster) throws {
        connection = try AgentConnection(socketPath: socketPath, throwsManagerErrors: true)
        relay = AgentEventRelay(connection: connection, broadcaster: broadcaster)
        let connection = self.connection
        broadcaster.onPause { id in connection.pauseSoon(id) }
        relay.start()
    }

    /// Starts the subscription if none is open (a stream handed out now must get the agent's updates).
    func keepSubscribed() { relay.start() }

    /// Returns once the agent has taken the subscription: every update the agent sends after
    /// this reaches the manager's streams. A call that starts downloads waits here first, so
    /// that a stream taken before it sees every update of what it started.
    func subscribed() async { await relay.subscribed() }

    deinit { relay.stop() }
}

/// One open `GET /v1/events` for every pack, relayed to a `StatusBroadcaster`. Opened again a
/// second after it ended (the agent stopped or restarted), until `stop`.
final class AgentEventRelay: @unchecked Sendable {
    private let connection: AgentConnection
    private let broadcaster: StatusBroadcaster
    private let lock = NSLock()
    /// The subscription open now (or being opened): fired once the agent has taken it.
    private var current: (generation: Int, signal: OnceSignal, task: Task<Void, Never>)?
    private var generation = 0
    private var stopped = false

    init(connection: AgentConnection, broadcaster: StatusBroadcaster) {
        self.connection = connection
        self.broadcaster = broadcaster
    }

    /// Opens the subscription unless one is open; returns its signal.
    @discardableResult
    func start() -> OnceSignal? {
        lock.withLock {
            guard !stopped else { return nil }
            if let current { return current.signal }
            generation += 1
            let mine = generation, signal = OnceSignal()
            let connection = self.connection, broadcaster = self.broadcaster
            let task = Task.detached { [weak self] in
                let updates = await connection.subscribedEvents()
                signal.fire()
                for await update in updates { broadcaster.send(update) }
                // The agent stopped (or restarted): subscribe again a second later, for as long
                // as the manager lives, so that its streams go on with the agent's next run.
                guard self?.ended(mine) == true, (try? await Task.sleep(for: .seconds(1))) != nil else { return }
                self?.start()
            }
            current = (mine, signal, task)
            return signal
        }
    }

    func subscribed() async {
        await start()?.wait()
    }

    /// Forgets the subscription that ended; whether the relay still runs.
    private func ended(_ generation: Int) -> Bool {
        lock.withLock {
            if current?.generation == generation { current = nil }
            return !stopped
        }
    }

    /// Closes the subscription for good (the manager is gone).
    func stop() {
        let task: Task<Void, Never>? = lock.withLock {
            stopped = true
            defer { current = nil }
            return current?.task
        }
        task?.cancel()
    }
}
