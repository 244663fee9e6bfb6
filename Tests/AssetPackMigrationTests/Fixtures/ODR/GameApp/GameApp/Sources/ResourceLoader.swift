import Foundation

/// Loads level content through On-Demand Resources.
final class ResourceLoader {
    private var request: NSBundleResourceRequest?
    private let extraTags: Set<String> = ["Level3"]

    func loadFirstLevel() async throws {
        let request = NSBundleResourceRequest(tags: ["Level1"])
        request.loadingPriority = NSBundleResourceRequestLoadingPriorityUrgent
        try await request.beginAccessingResources()
        self.request = request
    }

    func loadBonus(completion: @escaping (Error?) -> Void) {
        let request = NSBundleResourceRequest(tags: Set(["Level2", "Bonus"]), bundle: .main)
        request.beginAccessingResources { error in
            completion(error)
        }
    }

    func loadBackground() async {
        // The catalog spells this tag "background".
        let request = NSBundleResourceRequest(tags: ["Background"])
        let available = await request.conditionallyBeginAccessingResources()
        if !available {
            request.beginAccessingResources(completionHandler: { _ in })
        }
    }

    func loadExtras() {
        let request = NSBundleResourceRequest.init(tags: extraTags)
        request.conditionallyBeginAccessingResources { available in
            print("extras available: \(available)")
        }
    }

    func finish() {
        request?.endAccessingResources()
        // request?.endAccessingResources()
        Bundle.main.setPreservationPriority(0.9, forTags: ["Level1", "Tutorial"])
        let priority = Bundle.main.preservationPriority(forTag: "Level1")
        print("NSBundleResourceRequest is deprecated; priority \(priority)")
        NotificationCenter.default.addObserver(forName: .NSBundleResourceRequestLowDiskSpace, object: nil, queue: .main) { _ in }
    }
}
