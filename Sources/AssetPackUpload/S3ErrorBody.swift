/// The `<Code>` and `<Message>` of an S3 error response
/// (`<Error><Code>NoSuchBucket</Code><Message>…</Message>…</Error>`).
struct S3ErrorBody: Equatable {
    var code: String?
    var message: String?

    init(code: String?, message: String?) {
        self.code = code
        self.message = message
    }

    init(_ body: [UInt8]) {
        code = S3XML.element("Code", in: body)
        message = S3XML.element("Message", in: body)
    }
}
