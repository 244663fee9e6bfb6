import TestRepositories
import TestSupport
import Testing
@testable import AssetPackServer

@Suite struct ServerConfigurationTests {
    @Test func defaultsLeaveRoomForNormalUseAndBoundSlowClients() {
        let c = ServerConfiguration()
        #expect(c.connectionLimit == 4096 && c.perAddressConnectionLimit == 1024)
        #expect(c.requestTimeoutSeconds == 10 && c.idleTimeoutSeconds == 30)
    }

    @Test func limitsThatWouldServeNobodyAreRefusedAtStart() throws {
        let repo = try TestRepository.servingBytes()
        let cases: [(WritableKeyPath<ServerConfiguration, Int>, Int, String)] = [
            (\.connectionLimit, 0, "connectionLimit must be from 1 to 1000000, got 0"),
            (\.connectionLimit, Int.max, "connectionLimit must be from 1 to 1000000, got \(Int.max)"),
            (\.perAddressConnectionLimit, 0, "perAddressConnectionLimit must be from 1 to 1000000, got 0"),
            (\.requestTimeoutSeconds, 0, "requestTimeoutSeconds must be from 1 to 86400, got 0"),
            (\.idleTimeoutSeconds, 86_401, "idleTimeoutSeconds must be from 1 to 86400, got 86401"),
        ]
        for (field, value, message) in cases {
            #expect(throws: ServerError.configuration(message)) { try repo.serve(faults: FaultConfiguration()) { $0[keyPath: field] = value } }
        }
        #expect(ServerError.configuration("x").description == "bad server configuration: x")
    }
}
