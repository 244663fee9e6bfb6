import Foundation
import TestRepositories
import TestSupport
import Testing
@testable import AssetPackServer

@Suite struct TLSTests {
    @Test func createsReusesAndServesWithALocalCA() throws {
        let repo = try TestRepository.servingBytes()
        let dir = repo.dir.file("tls")
        let tls = try TLSDirectory.prepare(at: dir, host: "127.0.0.1", serving: repo.path)
        #expect(tls.actions.contains { $0.hasPrefix("created a new root CA") })
        let fm = FileManager.default
        for (name, mode) in [("ca.pem", 0o644), ("ca-key.pem", 0o600), ("server.pem", 0o644), ("server-key.pem", 0o600), ("ca.mobileconfig", 0o644)] {
            let attributes = try fm.attributesOfItem(atPath: dir + "/" + name)
            #expect((attributes[.posixPermissions] as? Int) == mode, "\(name)")
        }
        let caPEM = try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8)
        let ca = try #require(Certificate(pem: caPEM))
        let leaf = try #require(Certificate(pem: tls.identity.certificatePEM))
        #expect(ca.isCertificateAuthority)
        #expect(!leaf.isCertificateAuthority)
        #expect(leaf.isSigned(by: ca))
        #expect(leaf.covers(host: "127.0.0.1") && leaf.covers(host: "localhost") && !leaf.covers(host: "example.com"))
        #expect(leaf.secondsLeft <= 825 * 86_400)
        // openssl agrees: chain, EKU for a TLS server, validity.
        let verify = try ChildProcess.runBlocking("/usr/bin/openssl", ["verify", "-purpose", "sslserver", "-CAfile", dir + "/ca.pem", dir + "/server.pem"])
        #expect(verify.status == 0, "\(verify.stderr)")

        // Second run: the same CA and certificate; another host: a new certificate, same CA.
        let again = try TLSDirectory.prepare(at: dir, host: "127.0.0.1", serving: repo.path)
        #expect(again.actions.contains { $0.hasPrefix("reused the root CA") })
        #expect(again.identity.certificatePEM == tls.identity.certificatePEM)
        #expect(try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8) == caPEM)
        let other = try TLSDirectory.prepare(at: dir, host: "assets.test", serving: repo.path)
        #expect(other.identity.certificatePEM != tls.identity.certificatePEM)
        #expect(try #require(Certificate(pem: other.identity.certificatePEM)).covers(host: "assets.test"))
        #expect(try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8) == caPEM)

        // HTTPS, verified by curl against the generated CA only.
        let server = try repo.serve(tls: tls.identity)
        #expect(server.url.hasPrefix("https://127.0.0.1:"))
        let catalog = try ChildProcess.runBlocking("/usr/bin/curl", ["-sS", "--fail", "--cacert", dir + "/ca.pem", server.url + "catalog.json"])
        #expect(catalog.status == 0, "\(catalog.stderr)")
        #expect(Array(catalog.output) == TestRepository.stubCatalog)
        let range = try ChildProcess.runBlocking("/usr/bin/curl", ["-sS", "--fail", "--cacert", dir + "/ca.pem", "-r", "100-4195", server.url + "packs/big.pack"])
        #expect(Array(range.output) == Array(repo.pack[100...4195]))
        let untrusted = try ChildProcess.runBlocking("/usr/bin/curl", ["-sS", server.url + "catalog.json"])
        #expect(untrusted.status == 60)  // peer certificate cannot be authenticated with known CA certificates
    }

    @Test func configurationProfileCarriesTheCA() throws {
        let repo = try TestRepository.servingBytes()
        let dir = repo.dir.file("tls")
        let tls = try TLSDirectory.prepare(at: dir, host: "127.0.0.1", serving: repo.path)
        let data = try Data(contentsOf: URL(fileURLWithPath: tls.profilePath))
        let plist = try #require(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        #expect(plist["PayloadType"] as? String == "Configuration")
        #expect(plist["PayloadVersion"] as? Int == 1)
        let payloads = try #require(plist["PayloadContent"] as? [[String: Any]])
        #expect(payloads.count == 1)
        #expect(payloads[0]["PayloadType"] as? String == "com.apple.security.root")
        let ca = try #require(Certificate(pem: try String(contentsOfFile: dir + "/ca.pem", encoding: .utf8)))
        #expect((payloads[0]["PayloadContent"] as? Data).map(Array.init) == ca.der)
        let uuid = try #require(plist["PayloadUUID"] as? String)
        #expect(UUID(uuidString: uuid) != nil)
        #expect(payloads[0]["PayloadUUID"] as? String != uuid)
        // Stable: derived from the CA, so a second prepare writes the same profile.
        _ = try TLSDirectory.prepare(at: dir, host: "127.0.0.1", serving: repo.path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: tls.profilePath)) == data)
    }

    @Test func refusesABrokenCAInsteadOfReplacingIt() throws {
        let repo = try TestRepository.servingBytes()
        let dir = repo.dir.file("tls")
        _ = try TLSDirectory.prepare(at: dir, host: "127.0.0.1", serving: repo.path)
        try Data("not a certificate".utf8).write(to: URL(fileURLWithPath: dir + "/ca.pem"))
        #expect {
            try TLSDirectory.prepare(at: dir, host: "127.0.0.1", serving: repo.path)
        } throws: { error in
            "\(error)".contains("ca.pem") && "\(error)".contains("not a PEM certificate")
        }
    }
}
