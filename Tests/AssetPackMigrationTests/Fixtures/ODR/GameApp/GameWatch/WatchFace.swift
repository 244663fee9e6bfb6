import Foundation

struct WatchFace {
    func prepare() {
        let request = NSBundleResourceRequest(tags: ["WatchFaces"])
        request.beginAccessingResources { _ in }
    }
}
