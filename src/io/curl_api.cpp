#include "io/curl_api.hpp"

#include <dlfcn.h>

#include <string>

#include "io/io_error.hpp"

namespace modelcat::io {

namespace {

constexpr const char* kLibrary = "libcurl.so.4";

CurlApi load() {
    void* lib = ::dlopen(kLibrary, RTLD_NOW | RTLD_LOCAL);  // never closed: the process keeps it
    if (!lib) throw IoError(std::string("remote inputs need libcurl: ") + ::dlerror());
    auto bind = [lib](auto& f, const char* name) {
        f = reinterpret_cast<std::remove_reference_t<decltype(f)>>(::dlsym(lib, name));
        if (!f) throw IoError(std::string(kLibrary) + " has no " + name);
    };
    CurlApi a{};
    bind(a.global_init, "curl_global_init");
    bind(a.version_info, "curl_version_info");
    bind(a.getdate, "curl_getdate");
    bind(a.free, "curl_free");
    bind(a.url, "curl_url");
    bind(a.url_set, "curl_url_set");
    bind(a.url_get, "curl_url_get");
    bind(a.url_cleanup, "curl_url_cleanup");
    bind(a.easy_init, "curl_easy_init");
    bind(a.easy_setopt, "curl_easy_setopt");
    bind(a.easy_getinfo, "curl_easy_getinfo");
    bind(a.easy_strerror, "curl_easy_strerror");
    bind(a.easy_cleanup, "curl_easy_cleanup");
    bind(a.slist_append, "curl_slist_append");
    bind(a.slist_free_all, "curl_slist_free_all");
    bind(a.multi_init, "curl_multi_init");
    bind(a.multi_setopt, "curl_multi_setopt");
    bind(a.multi_add_handle, "curl_multi_add_handle");
    bind(a.multi_remove_handle, "curl_multi_remove_handle");
    bind(a.multi_perform, "curl_multi_perform");
    bind(a.multi_info_read, "curl_multi_info_read");
    bind(a.multi_poll, "curl_multi_poll");
    bind(a.multi_cleanup, "curl_multi_cleanup");
    a.global_init(CURL_GLOBAL_DEFAULT);
    return a;
}

}  // namespace

const CurlApi& curl() {
    static const CurlApi api = load();  // thread-safe; a throw leaves it to the next call
    return api;
}

}  // namespace modelcat::io
