import CCurl

// libcurl's callbacks: C function pointers (no captures), each recovering its `CurlTransfer`
// or `CurlUploadSource` from the context pointer given with CURLOPT_*DATA.

nonisolated(unsafe) let curlHeaderCallback: ccurl_data_callback = { buffer, size, count, context in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    transfer.receiveHeaderLine(UnsafeRawBufferPointer(start: buffer, count: size * count))
    return size * count
}

nonisolated(unsafe) let curlWriteCallback: ccurl_data_callback = { buffer, size, count, context in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    // Returning anything but the byte count makes libcurl stop with CURLE_WRITE_ERROR.
    return transfer.receiveBody(UnsafeRawBufferPointer(start: buffer, count: size * count)) ? size * count : 0
}

nonisolated(unsafe) let curlProgressCallback: ccurl_xferinfo_callback = { context, _, downloaded, _, _ in
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context!).takeUnretainedValue()
    return transfer.isCancelled || transfer.isTooSlow(downloaded: UInt64(max(0, downloaded))) ? 1 : 0
}

nonisolated(unsafe) let curlReadCallback: ccurl_data_callback = { buffer, size, count, context in
    let source = Unmanaged<CurlUploadSource>.fromOpaque(context!).takeUnretainedValue()
    return source.fill(UnsafeMutableRawBufferPointer(start: buffer, count: size * count)) ?? ccurl_readfunc_abort()
}

nonisolated(unsafe) let curlSeekCallback: ccurl_seek_callback = { context, offset, origin in
    let source = Unmanaged<CurlUploadSource>.fromOpaque(context!).takeUnretainedValue()
    guard origin == SEEK_SET else { return Int32(CURL_SEEKFUNC_CANTSEEK) }
    return source.rewind(to: Int64(offset)) ? Int32(CURL_SEEKFUNC_OK) : Int32(CURL_SEEKFUNC_FAIL)
}
