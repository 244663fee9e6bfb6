import AssetPackTransport
import Testing

@Suite struct ValueTests {
    @Test func byteRangeForms() throws {
        #expect(ByteRange(parsing: "10-19")?.count == 10)
        #expect(ByteRange(parsing: "10-")?.description == "10-")
        #expect(ByteRange(parsing: "19-10") == nil)
        #expect(ByteRange(parsing: "x-1") == nil)
        #expect(ByteRange(offset: 5, length: 0) == nil)
        #expect(ByteRange(offset: UInt64.max, length: 2) == nil)
        #expect(ByteRange(offset: 5, length: 3)?.description == "5-7")
    }

    @Test func headerLookupIgnoresCase() {
        var headers = HTTPHeaders([("Content-Type", "text/plain")])
        #expect(headers["content-type"] == "text/plain")
        headers.set("CONTENT-TYPE", "application/json")
        #expect(headers.fields.count == 1)
        #expect(headers["Content-Type"] == "application/json")
        headers.set("content-type", nil)
        #expect(!headers.contains("Content-Type"))
    }

    @Test func credentialsFromEnvironment() {
        #expect(AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a"]) == nil)
        let credentials = AWSCredentials(environment: ["AWS_ACCESS_KEY_ID": "a", "AWS_SECRET_ACCESS_KEY": "b", "AWS_SESSION_TOKEN": ""])
        #expect(credentials == AWSCredentials(accessKeyID: "a", secretAccessKey: "b"))
    }
}
