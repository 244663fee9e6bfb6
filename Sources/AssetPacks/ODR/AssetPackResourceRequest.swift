import Foundation

/// On-Demand Resources' `NSBundleResourceRequest` on top of asset packs: a request for the
/// resources of a set of tags, which downloads the packs that hold them and keeps them from
/// being evicted while it is open.
///
/// ```swift
/// let request = AssetPackResourceRequest(tags: ["Level2"], manager: manager)
/// try await request.beginAccessingResources()       // downloads what is missing
/// let map = try await manager.contents(at: "Levels/level2.json")
/// request.endAccessingResources()                  // the storage budget may evict it again
/// ```
///
/// Tags name packs as `assetpack convert odr` named them (see `ResourceTagMapping`). While a
/// request is accessing its resources, the storage budget (`Configuration.storageBudget`) never
/// evicts their packs; `endAccessingResources()` or the request's deinitialization ends that.
/// The count is kept in memory per manager, as ODR kept it per process. Files are read through
/// the manager (`contents(at:)`, `url(for:)`), not through a bundle.
public final class AssetPackResourceRequest: @unchecked Sendable {
    /// ODR's `NSBundleResourceRequestLoadingPriorityUrgent`.
    public static let loadingPriorityUrgent = Double.greatestFiniteMagnitude

    /// The tags whose resources the request needs (ODR's `tags`).
    public let tags: Set<String>
    /// The manager that downloads the packs and reads their files (ODR's `bundle`, in its place).
    public let manager: AssetPackManager
    /// Which packs the tags need: the manager's `configuration.resourceTagMapping` unless given.
    /// Not in ODR, where the build system decided.
    public let mapping: ResourceTagMapping
    /// Follows the downloads of `beginAccessingResources()`: complete once every pack is local
    /// (ODR's `progress`).
    public var progress: Progress { feed.progress }

    private let lock = NSLock()
    private let feed = ResourceRequestProgress()
    private var priority = 0.5
    /// The packs this request holds in use while it is accessing its resources.
    private var accessing: Set<String>?

    /// A request for the resources of `tags`, through `manager` (ODR's `init(tags:bundle:)`);
    /// `mapping` replaces the manager's `configuration.resourceTagMapping` for this request.
    /// Nothing happens before `beginAccessingResources()`.
    public init(tags: Set<String>, manager: AssetPackManager, mapping: ResourceTagMapping? = nil) {
        self.tags = tags
        self.manager = manager
        self.mapping = mapping ?? manager.configuration.resourceTagMapping
    }

    deinit {
        if let accessing { manager.resourcesInUse.release(accessing) }
    }

    /// ODR's hint (0…1, or `loadingPriorityUrgent`). Kept for source compatibility only: the
    /// downloads start at once and at full speed whatever its value.
    public var loadingPriority: Double {
        get { lock.withLock { priority } }
        set { lock.withLock { priority = newValue } }
    }

    /// Whether the request holds its packs (between a successful begin and the end). Not in
    /// ODR.
    public var isAccessingResources: Bool { lock.withLock { accessing != nil } }

    /// Downloads every pack the tags need that is not installed (sharing downloads under way),
    /// then holds them all in use until `endAccessingResources()`. They are held from the start,
    /// so that installing one cannot evict another. A tag no pack holds throws
    /// `AssetPackResourceRequestError.unknownTag`; a failed download throws its error and holds
    /// nothing. Calling it again while accessing does nothing. ODR's
    /// `beginAccessingResources()`, whose errors are `NSError`s instead.
    public func beginAccessingResources() async throws {
        if isAccessingResources { return }
        let (ids, missing) = try await manager.beginUsingResources(forTags: tags, mapping: mapping)
        feed.follow(missing, manager: manager)
        do {
            if !missing.isEmpty { try await manager.ensureLocalAvailability(of: Set(missing)) }
        } catch {
            feed.stop()
            manager.resourcesInUse.release(ids)
            if let batch = error as? AssetPackManager.LocalAvailabilityError, batch.failures.count == 1, let only = batch.failures.first { throw only.value }
            throw error
        }
        feed.finish()
        hold(ids)
    }

    /// The completion-handler form of `beginAccessingResources()`.
    public func beginAccessingResources(completionHandler: @escaping @Sendable ((any Error)?) -> Void) {
        Task {
            do { try await beginAccessingResources(); completionHandler(nil) } catch { completionHandler(error) }
        }
    }

    /// True, and the request accessing its resources, when every pack the tags need is already
    /// installed; false otherwise (an unknown tag too). Never downloads anything. ODR's
    /// `conditionallyBeginAccessingResources()`.
    public func conditionallyBeginAccessingResources() async -> Bool {
        if isAccessingResources { return true }
        guard let ids = await manager.beginUsingInstalledResources(forTags: tags, mapping: mapping) else { return false }
        feed.finish()
        hold(ids)
        return true
    }

    /// The completion-handler form of `conditionallyBeginAccessingResources()`.
    public func conditionallyBeginAccessingResources(completionHandler: @escaping @Sendable (Bool) -> Void) {
        Task { completionHandler(await conditionallyBeginAccessingResources()) }
    }

    /// Stops holding the packs: the storage budget may evict them again (once no other request
    /// holds them). The files stay installed until then. ODR's `endAccessingResources()`.
    public func endAccessingResources() {
        let released: Set<String>? = lock.withLock {
            defer { accessing = nil }
            return accessing
        }
        if let released { manager.resourcesInUse.release(released) }
    }

    /// Keeps `ids` as the request's packs, or gives them back when a concurrent begin won.
    private func hold(_ ids: Set<String>) {
        let won = lock.withLock {
            guard accessing == nil else { return false }
            accessing = ids
            return true
        }
        if !won { manager.resourcesInUse.release(ids) }
    }
}
