import AssetPacks
import Foundation

/// The agent's durable queue: every ensure it accepts, in SQLite (`ROOT/agent.sqlite`, WAL,
/// synchronous=FULL) before it is acknowledged, until the pack is installed. After a crash (or a
/// reboot) the next start takes up every request still `queued`; a `paused` one (cancelled)
/// waits to be asked for again; a `failed` one keeps its reason for status, as does a
/// `skipped` one (the should-download hook said no).
final class RequestQueueStore: @unchecked Sendable {
    enum State: String { case queued, paused, failed, skipped }
    static let schemaVersion: Int64 = 1
    private let db: SQLiteDatabase
    private let lock = NSLock()

    init(path: String) throws(AgentServiceError) {
        do {
            db = try SQLiteDatabase(path: path)
            let version = try db.query("PRAGMA user_version").first?.first?.int ?? 0
            guard version <= Self.schemaVersion else {
                throw AgentServiceError.queue("\(path) has schema version \(version); this agent understands up to \(Self.schemaVersion)")
            }
            try db.transaction {
                try db.execute("""
                CREATE TABLE IF NOT EXISTS requests (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT,
                    pack_id TEXT NOT NULL UNIQUE,
                    require_latest INTEGER NOT NULL,
                    state TEXT NOT NULL,
                    error TEXT,
                    next_attempt REAL,
                    priority INTEGER NOT NULL,
                    background INTEGER NOT NULL,
                    accepted_at REAL NOT NULL);
                PRAGMA user_version = \(Self.schemaVersion);
                """)
            }
        } catch let error as AgentServiceError {
            throw error
        } catch {
            throw .queue("\(path): \(error)")
        }
    }

    /// Records an accepted request (again `queued` if it was paused or failed); returns once it
    /// is on disk.
    /// A request asked for again keeps the higher priority, and is background only if both are.
    func accept(_ id: String, requireLatestVersion: Bool, priority: RequestPriority, background: Bool) throws(AgentServiceError) {
        try run("""
            INSERT INTO requests (pack_id, require_latest, state, error, priority, background, accepted_at)
            VALUES (?1, ?2, 'queued', NULL, ?3, ?4, ?5)
            ON CONFLICT (pack_id) DO UPDATE SET require_latest = max(require_latest, excluded.require_latest), state = 'queued',
                error = NULL, next_attempt = NULL, priority = min(priority, excluded.priority), background = min(background, excluded.background)
            """, [.text(id), .integer(requireLatestVersion ? 1 : 0), .integer(Int64(priority.rawValue)), .integer(background ? 1 : 0),
                  .real(Date().timeIntervalSince1970)])
    }

    /// How a queued request was asked for, to take it up again as it was.
    func scheduling(_ id: String) throws(AgentServiceError) -> (priority: RequestPriority, background: Bool)? {
        guard let row = try run("SELECT priority, background FROM requests WHERE pack_id = ?1", [.text(id)]).first else { return nil }
        return (RequestPriority(rawValue: Int(row[0].int ?? 2)) ?? .background, row[1].int == 1)
    }

    /// Sets the request's state, the reason of its last failure and when it is tried again.
    func mark(_ id: String, _ state: State, error: String? = nil, nextAttempt: Date? = nil) throws(AgentServiceError) {
        try run("UPDATE requests SET state = ?2, error = ?3, next_attempt = ?4 WHERE pack_id = ?1",
                [.text(id), .text(state.rawValue), error.map { .text($0) } ?? .null, nextAttempt.map { .real($0.timeIntervalSince1970) } ?? .null])
    }

    /// The pack is installed (or removed): the request is done.
    func finish(_ id: String) throws(AgentServiceError) {
        try run("DELETE FROM requests WHERE pack_id = ?1", [.text(id)])
    }

    /// Every request, oldest first.
    func records() throws(AgentServiceError) -> [AgentRequestRecord] {
        let rows = try run("SELECT pack_id, state, require_latest, error, next_attempt FROM requests ORDER BY seq", [])
        return rows.compactMap { row in
            guard let id = row[0].string, let state = row[1].string else { return nil }
            return AgentRequestRecord(id: id, state: state, requireLatestVersion: row[2].int == 1, error: row[3].string,
                                      nextAttempt: row[4].double.map { Date(timeIntervalSince1970: $0) })
        }
    }

    func record(_ id: String) throws(AgentServiceError) -> AgentRequestRecord? {
        try records().first { $0.id == id }
    }

    @discardableResult
    private func run(_ sql: String, _ arguments: [SQLiteValue]) throws(AgentServiceError) -> [[SQLiteValue]] {
        lock.lock()
        defer { lock.unlock() }
        do { return try db.query(sql, arguments) } catch { throw .queue("\(error)") }
    }
}
