/// The names of the On-Demand Resources API in Swift and Objective-C spellings. A token equal to
/// one of these is an API use; the scanner then refines the symbol (initializer, async, …).
public enum ODRSymbols {
    public static let names: Set<String> = [
        "NSBundleResourceRequest",
        "initWithTags",
        "beginAccessingResources",
        "beginAccessingResourcesWithCompletionHandler",
        "conditionallyBeginAccessingResources",
        "conditionallyBeginAccessingResourcesWithCompletionHandler",
        "endAccessingResources",
        "loadingPriority",
        "NSBundleResourceRequestLoadingPriorityUrgent",
        "setPreservationPriority",
        "preservationPriority",
        "preservationPriorityForTag",
        "NSBundleResourceRequestLowDiskSpaceNotification",
        "NSBundleResourceRequestLowDiskSpace",
    ]

    /// Names that are ODR only with a particular argument label right after `(`, because the bare
    /// word is common elsewhere (`preservationPriority` alone is someone's property).
    static let requiredSwiftLabel: [String: String] = ["preservationPriority": "forTag"]
}
