/** class-transformer's metadata storage and default options, which its index does not export: what `DtoInstantiation` reads. */
declare module 'class-transformer/cjs/storage' {
  export { defaultMetadataStorage } from 'class-transformer/types/storage';
}

declare module 'class-transformer/cjs/constants/default-options.constant' {
  export { defaultOptions } from 'class-transformer/types/constants/default-options.constant';
}
