import Testing
@testable import AssetPackServer

@Suite struct ServerConfigurationTests {
    @Test func defaultsLeaveRoomForNormalUseAndBoundSlowClients() {
        let c = ServerConfiguration()
        #expect(c.connectionLimit == 4096 && c.perAddressConnectionLimit == 1024)
        #expect(c.requestTimeoutSeconds == 10 && c.idleTimeoutSeconds == 30)
    }

    @Test func limitsThatWouldServeNobodyAreRefusedAtStart() throws {
        let repo = try TestRepository()
        let cases: [(WritableKeyPath<ServerConfiguration, Int>, String)] = [
            (\.connectionLimit, "connectionLimit must be at least 1, got 0"),
            (\.perAddressConnectionLimit, "perAddressConnectionLimit must be at least 1, got 0"),
            (\.requestTimeoutSeconds, "requestTimeoutSeconds must be at least 1, got 0"),
            (\.idleTimeoutSeconds, "idleTimeoutSeconds must be at least 1, got 0"),
        ]
        for (field, message) in cases {
            #expect(throws: ServerError.configuration(message)) { try repo.serve { $0[keyPath: field] = 0 } }
        }
        #expect(ServerError.configuration("x").description == "bad server configuration: x")
    }
}
