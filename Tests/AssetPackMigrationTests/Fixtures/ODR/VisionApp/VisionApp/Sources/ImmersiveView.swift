import Foundation

/* Loads the forest scenes on demand.
   Old code: /* nested */ NSBundleResourceRequest(tags: ["Night"]) was removed. */
struct ImmersiveView {
    let request = NSBundleResourceRequest(tags: ["Forest", "Night"])

    func open() async throws {
        try await request.beginAccessingResources()
        let label = #"raw "beginAccessingResources" text"#
        print(label)
    }
}
