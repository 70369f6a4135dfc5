# Cross build for arm64 (aarch64) with Debian's cross compiler and the :arm64 libraries of
# multiarch (scripts/deps --arm64 installs both):
#   cmake -S . -B build-arm64 -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake
# or scripts/build --arch arm64. The BPF objects are built by the host's clang and bpftool as
# for a native build, with the arm64 vmlinux.h and -D__TARGET_ARCH_arm64 (cmake/BpfSkeleton.cmake).
set(CMAKE_SYSTEM_NAME Linux)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)
set(CMAKE_CXX_COMPILER aarch64-linux-gnu-g++)
set(CMAKE_LIBRARY_ARCHITECTURE aarch64-linux-gnu)

# Libraries and headers of the target only; programs (clang, bpftool, pkg-config) of the host.
set(CMAKE_FIND_ROOT_PATH /usr/aarch64-linux-gnu)
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE BOTH)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE BOTH)
# pkg-config answers for the arm64 .pc files, never the host's.
set(ENV{PKG_CONFIG_LIBDIR} /usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig)
set(ENV{PKG_CONFIG_PATH} "")

# The build runs the binary it made (man pages, completion scripts): through qemu's user-mode
# emulator, which looks for the loader and libraries under the cross compiler's tree first
# (libstdc++ is there only), then where multiarch put the :arm64 ones.
find_program(BT_QEMU_AARCH64 NAMES qemu-aarch64 qemu-aarch64-static)
if(BT_QEMU_AARCH64)
  set(CMAKE_CROSSCOMPILING_EMULATOR ${BT_QEMU_AARCH64} -L /usr/aarch64-linux-gnu)
endif()
