# Finds Debian's compiled cpp-httplib through pkg-config.
#
# Why a module of our own: the .so is built with OpenSSL, zlib and brotli, and
# the header only declares SSLServer (and lays out Request the same way as the
# .so) when the same CPPHTTPLIB_* macros are defined. pkg-config carries them;
# the package ships no CMake config. Defines the imported target CppHttplib::CppHttplib.
find_package(PkgConfig REQUIRED)
pkg_check_modules(CPPHTTPLIB REQUIRED IMPORTED_TARGET cpp-httplib)
if(NOT TARGET CppHttplib::CppHttplib)
  add_library(CppHttplib::CppHttplib ALIAS PkgConfig::CPPHTTPLIB)
endif()
set(CppHttplib_FOUND TRUE)
