@testable import AssetPackMigration
import Testing

@Suite struct ODRSourceScannerTests {
    private func scan(_ text: String, _ language: SourceLanguage) -> ODRSourceScan {
        ODRSourceScanner.scan(Array(text.utf8), language: language, file: "f")
    }

    @Test func swiftSpellingsAndLiterals() {
        let s = scan("""
        let a = NSBundleResourceRequest(tags: ["A", "B"])
        let b = NSBundleResourceRequest(tags: Set(["C"]), bundle: .main)
        try await a.beginAccessingResources()
        a.beginAccessingResources { _ in }
        let ok = await a.conditionallyBeginAccessingResources()
        a.endAccessingResources()
        Bundle.main.setPreservationPriority(0.5, forTags: ["D"])
        _ = Bundle.main.preservationPriority(forTag: "E")
        // a.endAccessingResources()
        print("call beginAccessingResources() later \\(a.loadingPriority)")
        let p = preservationPriority
        """, .swift)
        let live = s.uses.filter(\.live)
        #expect(live.map(\.symbol) == ["NSBundleResourceRequest(tags:)", "NSBundleResourceRequest(tags:bundle:)", "beginAccessingResources() async",
                                       "beginAccessingResources(completionHandler:)", "conditionallyBeginAccessingResources() async",
                                       "endAccessingResources", "setPreservationPriority(_:forTags:)", "preservationPriority(forTag:)", "loadingPriority"])
        // The interpolation is code: loadingPriority there is live, at line 10.
        #expect(live.last?.line == 10)
        let dead = s.uses.filter { !$0.live }
        #expect(dead.map(\.symbol) == ["endAccessingResources", "beginAccessingResources"])
        #expect(dead.map(\.context) == ["comment", "string"])
        #expect(dead.map(\.line) == [9, 10])
        #expect(dead[0].column == 6)
        #expect(s.tagRequests.map(\.tag) == ["A", "B", "C", "D", "E"])
        #expect(s.tagRequests.map(\.line) == [1, 1, 2, 7, 8])
        #expect(s.dynamicTags.isEmpty)
    }

    @Test func objectiveCSpellingsAndCollections() {
        let s = scan("""
        r = [[NSBundleResourceRequest alloc] initWithTags:[NSSet setWithObjects:@"A", @"B", nil]];
        r = [[NSBundleResourceRequest alloc] initWithTags:[NSSet setWithArray:@[@"C"]] bundle:NSBundle.mainBundle];
        [r beginAccessingResourcesWithCompletionHandler:^(NSError *e) {}];
        [NSBundle.mainBundle setPreservationPriority:1.0 forTags:[NSSet setWithObject:@"D"]];
        x = [NSBundle.mainBundle preservationPriorityForTag:@"E"];
        char q = '"'; /* initWithTags: */ NSString *s = @"endAccessingResources";
        r = [[NSBundleResourceRequest alloc] initWithTags:tagSet];
        """, .objectiveC)
        #expect(s.uses.filter(\.live).map(\.symbol).filter { $0 != "NSBundleResourceRequest" } ==
                ["initWithTags:", "initWithTags:bundle:", "beginAccessingResourcesWithCompletionHandler:",
                 "setPreservationPriority:forTags:", "preservationPriorityForTag:", "initWithTags:"])
        #expect(s.uses.filter { !$0.live }.map(\.symbol) == ["initWithTags", "endAccessingResources"])
        #expect(s.tagRequests.map(\.tag) == ["A", "B", "C", "D", "E"])
        #expect(s.dynamicTags.map(\.line) == [7])
    }

    @Test func swiftRawMultilineAndNestedComments() {
        let s = scan("""
        /* outer /* inner */ NSBundleResourceRequest still comment */
        let t = \"\"\"
        endAccessingResources inside
        \"\"\"
        let r = #"a "beginAccessingResources" b"#
        request.endAccessingResources()
        """, .swift)
        #expect(s.uses.filter(\.live).map(\.line) == [6])
        #expect(s.uses.filter { !$0.live }.map(\.line) == [1, 3, 5])
    }
}
